/**
 * A client made of parts: each part is the namespace it is reached by (`platform.environmentGroups`,
 * `admin.flags`) and how it is made from the client's context (the platform's HTTP core and
 * account, the admin API's HTTP core). Each part file exports its `part`; `npm run generate` lists
 * those files (`sdk/platform/parts.ts`, `sdk/admin/parts.ts`), and the client gets one typed member
 * per part from that list ({@link partsBase}), so adding a part is its file alone. Each API
 * specialises these to its context (`sdk/platform/part.ts`, `sdk/admin/part.ts`).
 * @module
 */

/** One part: its namespace name and its factory from the client's context `Ctx`. */
export interface Part<Ctx, Name extends string = string, Api = unknown> {
  readonly name: Name;
  readonly make: (ctx: Ctx) => Api;
}

/** One member per part: its name, typed by what its factory makes. */
export type PartsOf<T extends readonly Part<never>[]> = {
  readonly [P in T[number] as P["name"]]: ReturnType<P["make"]>;
};

/** What a part makes: its member's type on the client. */
export type PartApi<P extends Part<never>> = ReturnType<P["make"]>;

/**
 * A base class whose instances hold one member per part, each made from the context given to its
 * constructor: a client extends it, so `platform.environmentGroups.create(...)` stays typed.
 */
export function partsBase<Ctx, const T extends readonly Part<Ctx>[]>(parts: T): new (ctx: Ctx) => PartsOf<T> {
  return class {
    constructor(ctx: Ctx) {
      for (const p of parts) (this as Record<string, unknown>)[p.name] = p.make(ctx);
    }
  } as unknown as new (
    ctx: Ctx,
  ) => PartsOf<T>;
}
