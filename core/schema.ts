// Small pieces every zod boundary shares. bonsai uses zod's v3 API ("zod" maps to
// npm:zod/v3): it loads in ~10 ms where the v4 API loads every locale in ~36 ms, a cost
// every command would pay at start-up.
import { z } from "zod";

/** A zod enum whose error message is `describe(rejected input)`. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  describe: (input: unknown) => string,
): z.ZodEnum<[T[number], ...T[number][]]> {
  return z.enum(values as unknown as [T[number], ...T[number][]], {
    errorMap: (_issue, ctx) => ({ message: describe(ctx.data) }),
  });
}
