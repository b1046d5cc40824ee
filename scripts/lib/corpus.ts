import { Prng, Zipf } from "./prng.ts";

// Text that looks like coding-agent conversations: English prose with a Zipf-distributed
// vocabulary (real words first, then identifier-like tokens), code, shell commands, file
// paths, and Chinese/Japanese sentences.

const WORDS = `the to and of a in is it that for you this with on be not are as can have we
will if but or at by from so your do an all my what should there which one use when would
file test function error code run need make change update add fix check build project
value type return new data config user set get call line first now also just then
change files tests module import export class method string number object array list map
server client request response api endpoint route handler database query table index
schema migration session message context model token cache cost usage budget limit time
start stop read write edit exec command shell output input path directory folder branch
commit merge rebase diff patch review issue bug feature release version package dependency
install upgrade deploy docker container image service worker thread process signal memory
performance latency benchmark profile trace log debug warning info failure success retry
timeout connection socket stream buffer parser lexer token compiler runtime deno node
typescript javascript rust python go sql sqlite postgres redis json yaml toml markdown
html css react component render state props hook effect store reducer action event
handler listener callback promise async await loop iterator generator closure scope
variable constant parameter argument option flag default override setting environment
secret key password auth login logout permission role admin account profile email name
date format locale timezone unicode encoding decode encode hash checksum crc sha random
seed sample result value count total sum average median percentile histogram chart graph
node edge tree root leaf child parent sibling depth width height size length offset
cursor page limit sort order filter search match pattern regex glob grep find replace
split join trim pad slice concat merge clone copy move rename delete remove create insert
select where group having union distinct primary foreign unique constraint trigger view
transaction commit rollback lock wait deadlock retry backoff jitter queue topic publish
subscribe consumer producer broker partition replica leader follower election quorum
snapshot restore backup archive compress extract upload download fetch cache invalidate
expire evict warm cold hot path critical section mutex semaphore atomic volatile fence
please thanks great looks good works now failing still broken again maybe instead better
faster slower smaller bigger cleaner simpler clearer safer wrong right correct expected
actual missing extra unused duplicate legacy deprecated experimental stable unstable
because since until while unless although however therefore otherwise meanwhile`.split(/\s+/);

const CJK = [
  "请帮我修复这个测试失败的问题",
  "会话数据保存在数据库中",
  "这个函数的性能需要优化",
  "我们需要添加全文搜索功能",
  "请检查配置文件是否正确",
  "部署之前先运行所有测试",
  "缓存命中率比预期低很多",
  "データベースの移行を確認してください",
  "このエラーはタイムアウトが原因です",
  "テストがすべて成功しました",
  "설정 파일을 다시 확인해 주세요",
  "중국어와 일본어 검색도 지원해야 합니다",
  "日志里有很多重复的警告信息",
  "把这个模块拆成两个文件",
  "用户登录以后会话过期太快了",
];

const CODE = [
  "function parseConfig(path: string): Config {\n  return JSON.parse(Deno.readTextFileSync(path));\n}",
  "const rows = db.prepare('SELECT id, title FROM sessions WHERE project_id = ?').all(projectId);",
  "if (err instanceof NotFound) {\n  return null;\n}",
  "export async function retry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {",
  "for (const [key, value] of Object.entries(env)) console.log(key, value);",
  "CREATE INDEX ledger_by_time ON ledger(created_at);",
  "fn main() -> Result<(), Box<dyn Error>> { Ok(()) }",
  "def handle(request):\n    return Response(status=204)",
];

const COMMANDS = [
  "deno test -A tests/",
  "git status --short",
  "npm run build",
  "grep -rn 'TODO' src/",
  "ls -la core/storage",
  "cargo test --release",
  "psql -c 'select count(*) from users'",
  "deno task check",
];

const PATHS = [
  "src/auth/login.ts",
  "core/storage/db.ts",
  "tests/api_test.ts",
  "README.md",
  "src/server/routes.ts",
  "lib/cache/lru.ts",
  "scripts/deploy.sh",
  "package.json",
];

/** A deterministic generator of message texts. */
export class Corpus {
  readonly #rng: Prng;
  readonly #zipf: Zipf;
  readonly #vocab: string[];

  constructor(rng: Prng, vocabularySize = 6000) {
    this.#rng = rng;
    this.#vocab = [...new Set(WORDS)];
    const syllables = [
      "ka",
      "lo",
      "mi",
      "ren",
      "tor",
      "vex",
      "qui",
      "zan",
      "pel",
      "dru",
      "shi",
      "nor",
    ];
    for (let i = 0; this.#vocab.length < vocabularySize; i++) {
      const a = syllables[i % syllables.length]!;
      const b = syllables[Math.floor(i / syllables.length) % syllables.length]!;
      const c = syllables[Math.floor(i / 144) % syllables.length]!;
      this.#vocab.push(`${a}${b}${c}${i % 7 === 0 ? "_id" : ""}`);
    }
    this.#zipf = new Zipf(this.#vocab.length, 1.0);
  }

  /** A sentence of roughly `chars` characters. */
  prose(chars: number): string {
    const words: string[] = [];
    let length = 0;
    while (length < chars) {
      const w = this.#vocab[this.#zipf.sample(this.#rng.next())]!;
      words.push(w);
      length += w.length + 1;
    }
    const text = words.join(" ");
    return text[0]!.toUpperCase() + text.slice(1) + ".";
  }

  /** A user or assistant message of about `chars` characters, sometimes with code or CJK. */
  message(chars: number): string {
    const r = this.#rng.next();
    if (r < 0.08) return `${this.#rng.pick(CJK)}，${this.prose(chars / 3)}`;
    if (r < 0.12) return `${this.#rng.pick(CJK)}。${this.#rng.pick(CJK)}。`;
    if (r < 0.22) return `${this.prose(chars / 2)}\n\n\`\`\`ts\n${this.#rng.pick(CODE)}\n\`\`\``;
    if (r < 0.3) return `${this.prose(chars * 0.7)} See ${this.#rng.pick(PATHS)}.`;
    return this.prose(chars);
  }

  /** A tool call: name, JSON arguments and a plausible result. */
  toolCall(): { name: string; args: string; result: string } {
    const kind = this.#rng.int(0, 3);
    if (kind === 0) {
      const command = this.#rng.pick(COMMANDS);
      return {
        name: "exec",
        args: JSON.stringify({ command }),
        result: `$ ${command}\n${this.prose(120)}\nexit 0`,
      };
    }
    if (kind === 1) {
      const path = this.#rng.pick(PATHS);
      return { name: "read", args: JSON.stringify({ path }), result: this.#rng.pick(CODE) };
    }
    if (kind === 2) {
      const pattern = this.#vocab[this.#zipf.sample(this.#rng.next())]!;
      return {
        name: "grep",
        args: JSON.stringify({ pattern }),
        result: `${this.#rng.pick(PATHS)}:12: ${pattern}`,
      };
    }
    const path = this.#rng.pick(PATHS);
    return {
      name: "edit",
      args: JSON.stringify({ path, old: "a", new: "b" }),
      result: `Edited ${path}`,
    };
  }

  /** A short title. */
  title(): string {
    const r = this.#rng.next();
    if (r < 0.1) return this.#rng.pick(CJK).slice(0, 12);
    const words = Array.from(
      { length: this.#rng.int(2, 5) },
      () => this.#rng.pick(WORDS.slice(20, 400)),
    );
    return words.join(" ").replace(/^./, (c) => c.toUpperCase());
  }
}
