/**
 * The records of the platform API's v2 entities (services, environments, environment groups,
 * infrastructure definitions, secrets, input sets, triggers, ...: the kinds of the emulator's parts,
 * listed by `npm run generate` in `./entity-kinds.ts`), as the state file holds them. One shape
 * serves them all: the scope (organization, project, and the parent an infrastructure,
 * input set or trigger lives under), the fields every entity has, and the kind's own fields as
 * the API returns them. A secret's value is never part of it: the emulator accepts it and keeps
 * nothing of it, so no read, list, log or state file can show it.
 * @module
 */
import { z } from "zod";
import { dataRecord } from "../../sdk/core/data-record";
import { Tags } from "../../sdk/platform/schemas";
import { ENTITY_KINDS } from "./entity-kinds";

export { ENTITY_KINDS, ENTITY_PARENTS } from "./entity-kinds";
/** A v2 entity kind (one per emulator part, `emulator/platform/<kind>.ts`; generated list). */
export type EntityKind = (typeof ENTITY_KINDS)[number];

/**
 * Where an entity lives: account (org and project null), organization or project, and for an
 * infrastructure its environment, for an input set or trigger its pipeline.
 */
export const EntityAt = z.object({
  org: z.string().nullable(),
  project: z.string().nullable(),
  parent: z.string().nullable(),
});
/** Where an entity lives. */
export type EntityAt = z.infer<typeof EntityAt>;

/** What a create or update sets. */
export const EntityFields = z.object({
  identifier: z.string(),
  name: z.string(),
  description: z.string(),
  tags: Tags,
  /** The kind's own fields as the API returns them (yaml, type, color, spec, ...). */
  fields: z.record(z.string(), z.unknown()),
});
/** What a create or update sets. */
export type EntityFields = z.infer<typeof EntityFields>;

/** An entity another one names (an override's environment), where the name resolved to. */
export const EntityRef = z.object({
  kind: z.enum(ENTITY_KINDS),
  at: EntityAt,
  identifier: z.string(),
});
/** An entity another one names. */
export type EntityRef = z.infer<typeof EntityRef>;

/** A stored v2 entity. */
export const StoredEntity = EntityFields.extend({
  at: EntityAt,
  createdAt: z.number().int(),
  lastModifiedAt: z.number().int(),
  /** Moves with each update; `If-Match` is compared with it where the API offers it. */
  version: z.number().int().nonnegative(),
  /**
   * The entities it names (the row's `references`), which it goes with: an override is deleted
   * with its environment. Absent when it names none (and in files written before it was kept).
   */
  references: z.array(EntityRef).optional(),
});
/** A stored v2 entity. */
export type StoredEntity = z.infer<typeof StoredEntity>;

/**
 * Every v2 entity by kind, each by `<org>/<project>/<parent>/<identifier>` (`-` for an absent
 * level); the keys are user identifiers, so each map is a {@link dataRecord}.
 */
export const PlatformEntitiesState = z.object(
  Object.fromEntries(ENTITY_KINDS.map((k) => [k, dataRecord(StoredEntity).default({})])) as Record<
    EntityKind,
    z.ZodDefault<z.ZodRecord<z.ZodString, typeof StoredEntity>>
  >,
);
/** The v2 entities part of the state file. */
export type PlatformEntitiesState = z.infer<typeof PlatformEntitiesState>;
