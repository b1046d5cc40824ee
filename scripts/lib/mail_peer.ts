// One side of the mailbox crash trials (mail_trials.ts), as its own process, so the trials
// can kill it with SIGKILL anywhere:
//   consume HOME SESSION [PHASE NTH]  owns SESSION (taking it over) and applies its deliveries
//                                     through the session host's PeerDesk until none is left
//                                     and HOME/drained is asked for (it starts once HOME/go
//                                     exists); with PHASE and NTH it stops
//                                     dead (inside the transaction, for the in-transaction
//                                     phases) at that phase of its NTH delivery and says so
//   send HOME PROJECT TO COUNT TAG    a new session of PROJECT sends COUNT messages to TO
// Lines on stdout: "ready", "paused PHASE ID", "sent BODY", "refused REASON", "done N".
import { systemClock } from "../../core/clock.ts";
import { type DeliveryPhase, PeerDesk } from "../../core/service/peer_desk.ts";
import { Heartbeat } from "../../core/session/heartbeat.ts";
import { resumeSession } from "../../core/session/lifecycle.ts";
import { MailboxStore } from "../../core/storage/mailbox.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { exists, openHome, ownSession, peersOf, procProbe, self } from "./peer_process.ts";

const say = (line: string) => Deno.stdout.writeSync(new TextEncoder().encode(`${line}\n`));

const probe = procProbe;

const [mode, home, ...rest] = Deno.args as [string, string, ...string[]];
const db = await openHome(home);
const owner = self();

if (mode === "consume") {
  const [sessionId, phase, nth] = rest as [string, DeliveryPhase | undefined, string | undefined];
  const runtime = resumeSession(db, new SessionStore(db).get(sessionId), owner, probe);
  const heartbeat = new Heartbeat(runtime, { clock: systemClock });
  heartbeat.start();
  let seen = 0;
  const desk = new PeerDesk({ db, clock: systemClock, probe }, runtime, {
    emit: () => {},
    onLeaseWait: () => {},
    onDelivery: (at, item) => {
      if (at === "due") seen++;
      if (at === phase && seen === Number(nth)) {
        say(`paused ${at} ${item.id}`);
        // Stopped dead where it is (inside the effect's transaction for the middle phases)
        // until the trial kills it.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
      }
    },
  });
  say("ready");
  const mail = new MailboxStore(db);
  for (;;) {
    if (!exists(`${home}/go`)) {
      await new Promise((r) => setTimeout(r, 2));
      continue;
    }
    desk.deliver(true);
    if (mail.pending(sessionId) === 0 && exists(`${home}/drained`)) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  heartbeat.stop();
  say(`done ${seen}`);
} else if (mode === "send") {
  const [project, to, count, tag] = rest as [string, string, string, string];
  const peers = peersOf(db, ownSession(db, project));
  for (let i = 0; i < Number(count); i++) {
    const body = `${tag}-${i}`;
    try {
      peers.send(to, body);
      say(`sent ${body}`);
    } catch (err) {
      say(`refused ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  say("done");
} else {
  throw new Error(`unknown mode '${mode}'`);
}
db.close();
