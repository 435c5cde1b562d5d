/**
 * Zod schemas for the feature-flag admin API (`../shared/spec/feature-flag-admin-api.md`).
 *
 * These schemas are the single source of types for the SDK client, the emulator and the
 * provider: response schemas validate what the service returns (they are `loose`, so a field the
 * real service adds never breaks a caller), request schemas validate what we send and what the
 * emulator accepts (they are strict about the fields the spec names).
 *
 * Where the spec says "not shown", the shapes come from `../shared/reference/admin-api-behaviour.md`
 * (cited as "ref §N").
 * @module
 */
import { z } from "zod";
import { dataRecord } from "../core/data-record";
import { secretField } from "../core/secret-fields";
import { regexProblem } from "../split/regex-safety";

/** Treatment names the service refuses (ref §2, "Creating a rollout plan"). */
export const RESERVED_TREATMENT_NAMES = [
  "all",
  "and",
  "between",
  "contain",
  "contains",
  "control",
  "datetime",
  "does",
  "end",
  "ends",
  "false",
  "has",
  "have",
  "if",
  "in",
  "is",
  "match",
  "matches",
  "not",
  "number",
  "set",
  "split",
  "start",
  "starts",
  "string",
  "then",
  "treatment",
  "true",
  "with",
] as const;

/** At most 20 treatments per flag per environment (ref §2). */
export const MAX_TREATMENTS = 20;

/** Flag names: start with a letter, then `[-_a-zA-Z0-9]`; a few words are reserved (ref §2). */
export const FLAG_NAME_PATTERN = /^[a-zA-Z][-_a-zA-Z0-9]*$/;
export const RESERVED_FLAG_NAMES = ["datetime", "string", "set", "integer"] as const;

export const IdRef = z.looseObject({ id: z.string(), name: z.string() });
export type IdRef = z.infer<typeof IdRef>;

// ---------------------------------------------------------------------------------------------
// Errors (spec §2 "Error body", §7)

/** The admin API's error body: `{code, message, details, transactionId}`. */
export const AdminErrorBody = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  details: z.string().optional().default(""),
  transactionId: z.string().optional(),
});
export type AdminErrorBody = z.infer<typeof AdminErrorBody>;

// ---------------------------------------------------------------------------------------------
// Workspaces (projects), environments, traffic types, rollout statuses (spec §2, §4)

export const Workspace = z.looseObject({
  /** The workspace's id. */
  id: z.string(),
  /** The workspace's name. */
  name: z.string(),
  /** Always `workspace`. */
  type: z.literal("workspace"),
  /** Whether every change in it must carry a title and a comment. */
  requiresTitleAndComments: z.boolean(),
});
export type Workspace = z.infer<typeof Workspace>;

/** Offset envelope used by workspaces, groups and flags: `{objects, offset, limit, totalCount}`. */
export const offsetPage = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    objects: z.array(item),
    offset: z.number().int(),
    limit: z.number().int(),
    totalCount: z.number().int(),
  });

export const WorkspaceCreate = z.object({
  name: z.string().min(1, "name must not be empty"),
  requiresTitleAndComments: z.boolean().default(false),
});
export type WorkspaceCreate = z.input<typeof WorkspaceCreate>;

export const Environment = z.looseObject({
  /** The environment's id. */
  id: z.string(),
  /** The environment's name. */
  name: z.string(),
  /** Whether it is a production environment. */
  production: z.boolean(),
});
export type Environment = z.infer<typeof Environment>;

/** A user or group named in an environment's change permissions: `{id, type}` (the service adds `name`). */
export const PermissionSubject = z.looseObject({
  id: z.string().min(1, "id must not be empty"),
  type: z.enum(["user", "group"], { error: 'type must be "user" or "group"' }),
  name: z.string().optional(),
});
export type PermissionSubject = z.infer<typeof PermissionSubject>;

/**
 * An environment's change permissions (ref §1.2, §9.2 `change_permissions`; the fields of
 * harness-go-sdk's `ChangePermissions`): whether changes need an approved change request, and who
 * approves them.
 */
export const ChangePermissions = z.looseObject({
  areApprovalsRequired: z.boolean().optional(),
  approvers: z.array(PermissionSubject).optional(),
  allowKills: z.boolean().optional(),
  areApproversRestricted: z.boolean().optional(),
  approvalSkippableBy: z.array(PermissionSubject).optional(),
});
export type ChangePermissions = z.infer<typeof ChangePermissions>;

/**
 * An SDK key the service makes with an environment (`apiTokens`, ref §1.2); `key` only where the
 * service returns it, a secret field (`sdk/core/secret-fields.ts`: no error of the call shows it).
 */
export const ApiToken = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string().optional(),
  apiKeyType: z.string(),
  key: secretField(z.string()).optional(),
});
export type ApiToken = z.infer<typeof ApiToken>;

/**
 * An environment as its create and PATCH answer it (ref §1.2): with its change permissions, and
 * on create with the SDK keys made for it (`apiTokens`).
 */
export const EnvironmentDetail = Environment.extend({
  changePermissions: ChangePermissions.optional(),
  apiTokens: z.array(ApiToken).optional(),
});
export type EnvironmentDetail = z.infer<typeof EnvironmentDetail>;

/**
 * An environment's name: at most 100 characters, starting with a letter or digit, then letters,
 * digits, spaces, `-` and `_` (the emulator checks bodies with it too).
 */
export const EnvironmentName = z
  .string({ error: "name is required" })
  .min(1, "name must not be empty")
  .max(100, "name must be at most 100 characters")
  .regex(
    /^[a-zA-Z0-9][-_a-zA-Z0-9 ]*$/,
    "name must start with a letter or digit and use only letters, digits, ' ', '-' and '_'",
  );

/** Body of `POST /environments/ws/{ws}` (ref §1.1: `{name, production, changePermissions?}`). */
export const EnvironmentCreate = z.object({
  name: EnvironmentName,
  production: z.boolean().default(false),
  changePermissions: ChangePermissions.optional(),
});
export type EnvironmentCreate = z.input<typeof EnvironmentCreate>;

/** Traffic types are a bare array of `{id, name, type?, displayAttributeId?}` (ref §1.1). */
export const TrafficType = z.looseObject({
  /** The traffic type's id. */
  id: z.string(),
  /** The traffic type's name (`user`, `account`, ...). */
  name: z.string(),
  /** Always `trafficType` when the service says. */
  type: z.string().optional(),
  /** The id of the attribute shown for its keys in the UI, if one is set. */
  displayAttributeId: z.string().nullable().optional(),
});
export type TrafficType = z.infer<typeof TrafficType>;

export const RolloutStatus = z.looseObject({
  /** The rollout status's id. */
  id: z.string(),
  /** The rollout status's name (`Pre-Production`, `Ramping`, ...). */
  name: z.string(),
  /** What the status means. */
  description: z.string(),
});
export type RolloutStatus = z.infer<typeof RolloutStatus>;

/**
 * The account's rollout statuses, in lifecycle order. They are the same for every account and
 * workspace (the spec shows the first three and says the list is longer; the rest follow the
 * product's documented lifecycle, inferred), so the provider's `check` can refuse an unknown name
 * without an API call; create and update still resolve the name through the listed statuses.
 */
export const ROLLOUT_STATUSES = [
  { name: "Pre-Production", description: "Feature flag is in development and not yet released" },
  { name: "Ramping", description: "Feature flag is being gradually released to customers" },
  { name: "Experimenting", description: "Feature flag is in an experiment measuring its impact" },
  { name: "Ramped", description: "Feature flag is released to 100% of customers" },
  { name: "Killed", description: "Feature flag was killed and is serving the default treatment" },
  { name: "Ready to Remove", description: "Feature flag is no longer needed and can be removed from code" },
  { name: "Removed", description: "Feature flag has been removed from code" },
] as const;
export const ROLLOUT_STATUS_NAMES = ROLLOUT_STATUSES.map((s) => s.name);

// ---------------------------------------------------------------------------------------------
// Flags, project level (spec §2 "Feature flag", ref §1.1)

/** Tags on the wire are `[{name}]` or null (ref §9.1, issue #114). */
export const Tag = z.looseObject({ name: z.string() });

export const Flag = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z
    .string()
    .nullable()
    .transform((d) => d ?? ""),
  trafficType: IdRef,
  creationTime: z.number().int(),
  rolloutStatus: IdRef,
  rolloutStatusTimestamp: z.number().int(),
  tags: z.array(Tag).nullable(),
  owners: z.array(z.looseObject({ id: z.string(), type: z.string() })).optional(),
});
export type Flag = z.infer<typeof Flag>;

export const FlagCreate = z.object({
  name: z
    .string()
    .min(1, "name must not be empty")
    .max(100, "name must be at most 100 characters")
    .regex(FLAG_NAME_PATTERN, "name must start with a letter and use only letters, digits, '-' and '_'")
    .refine((n) => !(RESERVED_FLAG_NAMES as readonly string[]).includes(n.toLowerCase()), {
      message: "name is a reserved word",
    }),
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
});
export type FlagCreate = z.input<typeof FlagCreate>;

// ---------------------------------------------------------------------------------------------
// JSON Patch (RFC 6902) bodies for PATCH of flags, definitions and users

export const PatchOperation = z.discriminatedUnion("op", [
  z.object({ op: z.literal("add"), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal("replace"), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal("remove"), path: z.string() }),
  z.object({ op: z.literal("test"), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal("move"), path: z.string(), from: z.string() }),
  z.object({ op: z.literal("copy"), path: z.string(), from: z.string() }),
]);
export type PatchOperation = z.infer<typeof PatchOperation>;
export const JsonPatch = z.array(PatchOperation);
export type JsonPatch = z.infer<typeof JsonPatch>;

// ---------------------------------------------------------------------------------------------
// Flag definitions, per environment (spec §2, ref §2 and §3)

/** Admin matcher types (ref §3). The SDK wire names (ALL_KEYS, WHITELIST, ...) are not accepted. */
export const MATCHER_TYPES = [
  "IN_SEGMENT",
  "EQUAL_SET",
  "ANY_OF_SET",
  "ALL_OF_SET",
  "PART_OF_SET",
  "ON_DATE",
  "ON_OR_AFTER_DATE",
  "ON_OR_BEFORE_DATE",
  "BETWEEN_DATE",
  "BOOLEAN",
  "EQUAL_NUMBER",
  "LESS_THAN_OR_EQUAL_NUMBER",
  "GREATER_THAN_OR_EQUAL_NUMBER",
  "BETWEEN_NUMBER",
  "IN_LIST_STRING",
  "STARTS_WITH_STRING",
  "ENDS_WITH_STRING",
  "CONTAINS_STRING",
  "MATCHES_STRING",
  "IN_SPLIT",
] as const;

export const Matcher = z.object({
  type: z.enum(MATCHER_TYPES),
  negate: z.boolean().optional(),
  attribute: z.string().optional(),
  string: z.string().optional(),
  strings: z.array(z.string()).optional(),
  bool: z.boolean().optional(),
  number: z.number().optional(),
  date: z.number().int().optional(),
  between: z.object({ from: z.number(), to: z.number() }).optional(),
  depends: z.object({ splitName: z.string(), treatment: z.string() }).optional(),
});
export type Matcher = z.infer<typeof Matcher>;

export const Bucket = z.object({
  treatment: z.string().min(1, "treatment must not be empty"),
  size: z
    .number()
    .int("size must be a whole number")
    .min(0, "size must be 0..100")
    .max(100, "size must be 0..100"),
});
export type Bucket = z.infer<typeof Bucket>;

export const Rule = z.object({
  buckets: z.array(Bucket).min(1, "a rule needs at least one bucket"),
  condition: z.object({
    combiner: z.literal("AND").default("AND"),
    matchers: z.array(Matcher).min(1, "a condition needs at least one matcher"),
  }),
});
export type Rule = z.infer<typeof Rule>;

export const Treatment = z.object({
  name: z
    .string()
    .min(1, "treatment name must not be empty")
    .max(100, "treatment name must be at most 100 characters")
    .regex(
      /^[a-zA-Z][-_a-zA-Z0-9]*$/,
      "treatment name must start with a letter and use only letters, digits, '-' and '_'",
    )
    .refine((n) => !(RESERVED_TREATMENT_NAMES as readonly string[]).includes(n.toLowerCase()), {
      message: "treatment name is a reserved word",
    }),
  description: z.string().optional(),
  /** A JSON document as a string (ref §2). */
  configurations: z.string().optional(),
  /** Individual targets: keys that always get this treatment. */
  keys: z.array(z.string().min(1)).optional(),
  /** Segments whose members always get this treatment. */
  segments: z.array(z.string().min(1)).optional(),
});
export type Treatment = z.infer<typeof Treatment>;

/**
 * The writable part of a definition, as sent on POST (spec §4, ref §2: treatments, defaultTreatment
 * and defaultRule are required). Whole-document rules are checked by {@link validateDefinition}.
 */
/**
 * Title and comment of a change of a definition (mandatory when the workspace requires them,
 * spec §4): in the body of a POST or PUT, as query parameters otherwise.
 */
export const ChangeNote = z.object({
  title: z.string().optional(),
  comment: z.string().optional(),
});
/** Title and comment of a definition change. */
export type ChangeNote = z.input<typeof ChangeNote>;

/**
 * A flag set a definition belongs to, as the definition carries it (ref admin §2: `flagSets:
 * [{id, type}]`; splitapiclient 3.5.9 `resources/split_definition.py` reads it). The `type` is
 * spelled as the flag set resource's own `type` (`resources/flag_set.py`; the emulator's
 * `flag-sets.ts` answers `"flag_set"`): inferred, no public evidence spells a membership's type.
 */
export const FlagSetRef = z.object({
  id: z.string().min(1, "a flag set id must not be empty"),
  type: z.string().default("flag_set"),
});
export type FlagSetRef = z.output<typeof FlagSetRef>;

export const DefinitionBody = z.object({
  treatments: z.array(Treatment).min(1, "at least one treatment is required"),
  defaultTreatment: z.string().min(1, "defaultTreatment must not be empty"),
  baselineTreatment: z.string().min(1).optional(),
  trafficAllocation: z
    .number()
    .int("trafficAllocation must be a whole number")
    .min(0, "trafficAllocation must be 0..100")
    .max(100, "trafficAllocation must be 0..100")
    .default(100),
  rules: z.array(Rule).default([]),
  defaultRule: z.array(Bucket).min(1, "defaultRule needs at least one bucket"),
  killed: z.boolean().optional(),
  /** The flag sets the flag belongs to in this environment (omitted on PUT: kept, inferred). */
  flagSets: z.array(FlagSetRef).optional(),
  ...ChangeNote.shape,
});
export type DefinitionBody = z.input<typeof DefinitionBody>;
export type DefinitionDoc = z.output<typeof DefinitionBody>;

/**
 * The members of the definition document that a POST or PATCH sets (the kill flag changes by its
 * own operation; title and comment are the change's note), from {@link DefinitionBody}.
 */
export const DEFINITION_DOC_FIELDS = DefinitionBody.omit({ killed: true, title: true, comment: true }).keyof()
  .options;
/** The members of a treatment, from {@link Treatment}. */
export const TREATMENT_FIELDS = Treatment.keyof().options;
/** The members of a matcher, from {@link Matcher}. */
export const MATCHER_FIELDS = Matcher.keyof().options;

/** One problem found in a definition as a whole, with the JSON path of the field at fault. */
export interface DefinitionProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Whole-document rules of a definition that no single field can check (ref §2, §3 and §7): bucket
 * sizes sum to 100 in each rule and in the default rule, every named treatment exists, treatment
 * names are unique, at most 20 treatments, set matchers name an attribute, value lists are not
 * empty, `MATCHES_STRING` holds a valid regular expression that cannot backtrack catastrophically
 * (`sdk/split/regex-safety.ts`), `BETWEEN_NUMBER` / `BETWEEN_DATE` ranges are not inverted. Used by the emulator (after a POST or a JSON Patch), by
 * the provider's `check` and by the policy pack, so all three agree to the letter.
 */
export function validateDefinition(def: {
  treatments: { name: string }[];
  defaultTreatment: string;
  baselineTreatment?: string | undefined;
  rules?: {
    buckets: { treatment: string; size: number }[];
    condition?: { matchers: Pick<Matcher, "type" | "attribute" | "string" | "strings" | "between">[] };
  }[];
  defaultRule: { treatment: string; size: number }[];
}): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const names = new Set<string>();
  def.treatments.forEach((t, i) => {
    if (names.has(t.name))
      problems.push({ path: ["treatments", i, "name"], message: `treatment "${t.name}" is defined twice` });
    names.add(t.name);
  });
  if (def.treatments.length > MAX_TREATMENTS) {
    problems.push({
      path: ["treatments"],
      message: `at most ${MAX_TREATMENTS} treatments are allowed, got ${def.treatments.length}`,
    });
  }
  const known = [...names].map((n) => `"${n}"`).join(", ");
  if (!names.has(def.defaultTreatment)) {
    problems.push({
      path: ["defaultTreatment"],
      message: `defaultTreatment "${def.defaultTreatment}" is not one of the treatments (${known})`,
    });
  }
  if (def.baselineTreatment !== undefined && !names.has(def.baselineTreatment)) {
    problems.push({
      path: ["baselineTreatment"],
      message: `baselineTreatment "${def.baselineTreatment}" is not one of the treatments (${known})`,
    });
  }
  const checkBuckets = (buckets: { treatment: string; size: number }[], at: (string | number)[]) => {
    const sum = buckets.reduce((s, b) => s + b.size, 0);
    if (sum !== 100) problems.push({ path: at, message: `bucket sizes must sum to 100, got ${sum}` });
    buckets.forEach((b, i) => {
      if (!names.has(b.treatment)) {
        problems.push({
          path: [...at, i, "treatment"],
          message: `treatment "${b.treatment}" is not one of the treatments (${known})`,
        });
      }
    });
  };
  (def.rules ?? []).forEach((r, i) => {
    checkBuckets(r.buckets, ["rules", i, "buckets"]);
  });
  checkBuckets(def.defaultRule, ["defaultRule"]);
  (def.rules ?? []).forEach((rule, r) => {
    (rule.condition?.matchers ?? []).forEach((m, i) => {
      const at = (field: string) => ["rules", r, "condition", "matchers", i, field];
      // ref §3: set matchers compare an attribute's values (`strings` + `attribute`).
      if (SET_MATCHERS.has(m.type) && !m.attribute) {
        problems.push({ path: at("attribute"), message: `attribute is required for a ${m.type} matcher` });
      }
      if (m.strings !== undefined && m.strings.length === 0) {
        problems.push({ path: at("strings"), message: "strings must not be empty" });
      }
      if (m.type === "MATCHES_STRING" && m.string !== undefined) {
        const problem = regexProblem(m.string);
        if (problem !== undefined) problems.push({ path: at("string"), message: problem });
      }
      // An inverted range matches nothing: surely a mistake, and the service does not say so.
      if (
        (m.type === "BETWEEN_NUMBER" || m.type === "BETWEEN_DATE") &&
        m.between &&
        m.between.from > m.between.to
      ) {
        const [from, to] =
          m.type === "BETWEEN_DATE"
            ? [date(m.between.from), date(m.between.to)]
            : [m.between.from, m.between.to];
        const bigger = m.type === "BETWEEN_DATE" ? "after" : "greater than";
        problems.push({
          path: at("between"),
          message: `between.from (${from}) is ${bigger} between.to (${to}): an inverted range matches nothing`,
        });
      }
    });
  });
  return problems;
}

const SET_MATCHERS = new Set<string>(["EQUAL_SET", "ANY_OF_SET", "ALL_OF_SET", "PART_OF_SET"]);

/** Epoch milliseconds as an ISO time, or the number when it is no valid time. */
const date = (ms: number) => (Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms));

/** A definition as the service returns it (spec §2; ref §2 adds flagSets and friends). */
export const Definition = z.looseObject({
  id: z.string(),
  name: z.string(),
  environment: IdRef,
  trafficType: IdRef,
  killed: z.boolean(),
  treatments: z.array(Treatment.extend({ name: z.string() }).loose()),
  defaultTreatment: z.string(),
  baselineTreatment: z.string().optional(),
  trafficAllocation: z.number().int(),
  rules: z.array(
    z.looseObject({
      buckets: z.array(Bucket),
      condition: z.looseObject({ combiner: z.string(), matchers: z.array(Matcher.loose()) }),
    }),
  ),
  defaultRule: z.array(Bucket),
  flagSets: z.array(FlagSetRef.loose()).optional(),
  creationTime: z.number().int(),
  lastUpdateTime: z.number().int(),
});
export type Definition = z.infer<typeof Definition>;

// ---------------------------------------------------------------------------------------------
// Users and groups (spec §2, §4; ref §5)

export const USER_STATUSES = ["PENDING", "ACTIVE", "DEACTIVATED"] as const;
export const UserStatus = z.enum(USER_STATUSES);
export type UserStatus = z.infer<typeof UserStatus>;

export const GroupRef = z.object({ id: z.string().min(1), type: z.literal("group") });
export type GroupRef = z.infer<typeof GroupRef>;

export const User = z.looseObject({
  /** The user's id. */
  id: z.string(),
  /** Always `user`. */
  type: z.literal("user"),
  /** The user's name. */
  name: z.string(),
  /** The user's email address. */
  email: z.string(),
  /** `ACTIVE`, `DEACTIVATED` or `PENDING` (invited, not yet joined). */
  status: UserStatus,
  /** Whether the user has two-factor authentication on. */
  "2fa": z.boolean(),
  /** The groups the user is a member of. */
  groups: z.array(GroupRef.loose()).optional(),
});
export type User = z.infer<typeof User>;

export const UserInviteBody = z.object({
  email: z.email("email must be a valid e-mail address"),
  groups: z.array(GroupRef).default([]),
});
export type UserInviteBody = z.input<typeof UserInviteBody>;

/** PUT needs all properties: it is not a partial update (spec §4). */
export const UserPutBody = z.object({
  email: z.email("email must be a valid e-mail address"),
  name: z.string().min(1, "name must not be empty"),
  status: UserStatus,
  "2fa": z.boolean(),
  type: z.literal("user"),
});
export type UserPutBody = z.infer<typeof UserPutBody>;

/** Users list envelope: marker pagination (spec §4). */
export const UserPage = z.looseObject({
  data: z.array(User),
  nextMarker: z.string().nullable(),
  previousMarker: z.string().nullable(),
  limit: z.number().int(),
  count: z.number().int(),
});
export type UserPage = z.infer<typeof UserPage>;

export const Group = z.looseObject({
  /** The group's id. */
  id: z.string(),
  /** The group's name. */
  name: z.string(),
  /** The group's description (empty when none). */
  description: z
    .string()
    .nullable()
    .transform((d) => d ?? ""),
  /** Always `group`. */
  type: z.literal("group"),
});
export type Group = z.infer<typeof Group>;

export const GroupCreate = z.object({
  name: z.string().min(1, "name must not be empty").max(256, "name must be at most 256 characters"),
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
});
export type GroupCreate = z.input<typeof GroupCreate>;

export const GroupPut = GroupCreate.extend({
  id: z.string().optional(),
  type: z.literal("group").optional(),
});
export type GroupPut = z.input<typeof GroupPut>;

/** Page size limits (spec §8). */
export const LIMITS = {
  usersDefault: 20,
  usersMax: 200,
  groupsDefault: 50,
  groupsMax: 200,
  workspacesDefault: 10,
  workspacesMax: 100,
  flagsDefault: 20,
  flagsMax: 50,
} as const;

// The literal `true` body of DELETEs (spec §4).
export const TrueBody = z.literal(true);

// ---------------------------------------------------------------------------------------------
// Flag sets, traffic-type attributes, identities, large and rule-based segments, change requests
// and restrictions (ref §1.1; where the reference is silent, the shapes Split's official Python
// client sends and reads, `splitapiclient` 3.5.9, as each schema says)

/** Flag set names (ref §9.1 `split_flag_set`: 1-50 characters, `[a-z0-9][_a-z0-9.]*`). */
export const FlagSetName = z
  .string({ error: "name is required" })
  .min(1, "name must not be empty")
  .max(50, "name must be at most 50 characters")
  .regex(/^[a-z0-9][_a-z0-9.]*$/, "name must start with a-z or 0-9 and use only a-z, 0-9, '_' and '.'");

/** Body of v3 `POST /flag-sets` (`microclients/flag_set_microclient.py` `add`). */
export const FlagSetCreate = z.object({
  name: FlagSetName,
  description: z.string().max(255, "description must be at most 255 characters").nullish(),
  workspace: z.object({
    id: z.string().min(1, "workspace.id must not be empty"),
    type: z.string().optional(),
  }),
});
export type FlagSetCreate = z.input<typeof FlagSetCreate>;

/** A flag set (`resources/flag_set.py` `_schema`). */
export const FlagSet = z.looseObject({
  /** The flag set's id. */
  id: z.string(),
  /** The flag set's name. */
  name: z.string(),
  /** The flag set's description, `null` when none. */
  description: z.string().nullable(),
  /** The workspace it belongs to, by id. */
  workspace: z.object({ id: z.string(), type: z.string() }),
  /** Creation time, as the service writes it (ISO 8601). */
  createdAt: z.string(),
  /** Always `flag_set`. */
  type: z.literal("flag_set"),
});
export type FlagSet = z.infer<typeof FlagSet>;

/** Data types of a traffic-type attribute (ref §9.1 `split_traffic_type_attribute`). */
export const ATTRIBUTE_DATA_TYPES = ["STRING", "DATETIME", "NUMBER", "SET"] as const;

/** An attribute as sent (ref §9.1 limits; `resources/attribute.py` `_schema`). */
export const AttributeBody = z.object({
  id: z
    .string({ error: "id is required" })
    .min(1, "id must not be empty")
    .max(200, "id must be at most 200 characters"),
  trafficTypeId: z.string().optional(),
  displayName: z.string().max(200, "displayName must be at most 200 characters").nullish(),
  description: z.string().max(500, "description must be at most 500 characters").nullish(),
  dataType: z.enum(ATTRIBUTE_DATA_TYPES).nullish(),
  isSearchable: z.boolean().nullish(),
  suggestedValues: z
    .array(z.string().max(50, "a suggested value must be at most 50 characters"))
    .max(50, "at most 50 suggested values")
    .nullish(),
});
export type AttributeBody = z.input<typeof AttributeBody>;

/** An attribute as the service returns it. */
export const Attribute = z.looseObject({
  id: z.string(),
  trafficTypeId: z.string(),
  displayName: z.string().nullable(),
  description: z.string().nullable(),
  dataType: z.string().nullable(),
  isSearchable: z.boolean(),
  suggestedValues: z.array(z.string()),
});
export type Attribute = z.infer<typeof Attribute>;

/** An identity: attribute values of one key (`resources/identity.py` `_schema`). */
export const IdentityBody = z.object({
  key: z.string().min(1, "key must not be empty").max(250, "key must be at most 250 characters").optional(),
  trafficTypeId: z.string().optional(),
  environmentId: z.string().optional(),
  /** By attribute id: user names, so a {@link dataRecord} (`__proto__` is an attribute id like any other). */
  values: dataRecord(z.unknown(), { error: "values must be an object of attribute values" }),
});
export type IdentityBody = z.input<typeof IdentityBody>;

/** The bulk answer of identities and attributes (`identity_microclient.py` `save_all`). */
export const BulkResult = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    objects: z.array(item),
    failed: z.array(z.looseObject({ object: z.unknown(), status: z.number().int(), message: z.string() })),
    metadata: z.record(z.string(), z.unknown()),
  });

/** Body creating a segment of any kind: `{name, description}` (ref §1.1). */
export const SegmentCreateBody = z.object({
  name: z
    .string({ error: "name is required" })
    .min(1, "name must not be empty")
    .max(100, "name must be at most 100 characters")
    .regex(
      /^[a-zA-Z][-_a-zA-Z0-9]*$/,
      "name must start with a letter and use only letters, digits, '-' and '_'",
    ),
  description: z.string().max(1024, "description must be at most 1024 characters").nullish(),
});
export type SegmentCreateBody = z.input<typeof SegmentCreateBody>;

/** Body of `POST /trafficTypes/ws/{ws}` (ref §1.1 `{name}`): named by the rule of segment names. */
export const TrafficTypeCreate = z.object({ name: SegmentCreateBody.shape.name });
export type TrafficTypeCreate = z.input<typeof TrafficTypeCreate>;

/** A rule of a rule-based segment: a condition, no buckets (`resources/rule_based_segment_definition.py`). */
export const SegmentRule = z.object({
  condition: z.object({
    combiner: z.literal("AND").default("AND"),
    matchers: z.array(Matcher).min(1, "a condition needs at least one matcher"),
  }),
});
export type SegmentRule = z.infer<typeof SegmentRule>;

/** A segment excluded from a rule-based segment: `{name, type}`. */
export const ExcludedSegment = z.object({ name: z.string().min(1), type: z.string().min(1) });

/** Body of `PUT /rule-based-segments/ws/{ws}/{name}/environments/{env}` (`rule_based_segment_definition_microclient.py`). */
export const RuleBasedSegmentDefinitionBody = z.object({
  rules: z.array(SegmentRule).nullish(),
  excludedKeys: z.array(z.string().min(1)).nullish(),
  excludedSegments: z.array(ExcludedSegment).nullish(),
  ...ChangeNote.shape,
});
export type RuleBasedSegmentDefinitionBody = z.input<typeof RuleBasedSegmentDefinitionBody>;

/** Change request states (ref §1.1). */
export const CHANGE_REQUEST_STATUSES = [
  "REQUESTED",
  "APPROVED",
  "PUBLISHED",
  "WITHDRAWN",
  "REJECTED",
] as const;
export const ChangeRequestStatus = z.enum(CHANGE_REQUEST_STATUSES);
/** What a change does (ref §1.1, plus UPLOAD of `large_segment_definition_microclient.py`). */
export const CHANGE_OPERATIONS = ["CREATE", "UPDATE", "KILL", "RESTORE", "ARCHIVE", "UPLOAD"] as const;

/** Body of `POST /changeRequests/ws/{ws}/environments/{env}` (ref §1.1; `resources/change_request.py`). */
export const ChangeRequestCreate = z
  .object({
    split: z.looseObject({ name: z.string().min(1, "split.name must not be empty") }).optional(),
    segment: z.object({ name: z.string().min(1), keys: z.array(z.string().min(1)).default([]) }).optional(),
    largeSegment: z.looseObject({ name: z.string().min(1) }).optional(),
    ruleBasedSegment: RuleBasedSegmentDefinitionBody.omit({ title: true, comment: true })
      .extend({ name: z.string().min(1) })
      .optional(),
    operationType: z.enum(CHANGE_OPERATIONS, {
      error: `operationType must be one of ${CHANGE_OPERATIONS.join(", ")}`,
    }),
    title: z.string().nullish(),
    comment: z.string().nullish(),
    approvers: z.array(z.string()).nullish(),
    rolloutStatus: z.object({ id: z.string().min(1) }).nullish(),
  })
  .refine((b) => [b.split, b.segment, b.largeSegment, b.ruleBasedSegment].filter(Boolean).length === 1, {
    message: "exactly one of split, segment, largeSegment and ruleBasedSegment is required",
  });
export type ChangeRequestCreate = z.input<typeof ChangeRequestCreate>;

/** Body of `PUT /changeRequests/{id}` (ref §1.1). */
export const ChangeRequestStatusBody = z.object({
  status: z.enum(["APPROVED", "REJECTED", "WITHDRAWN"], {
    error: "status must be APPROVED, REJECTED or WITHDRAWN",
  }),
  comment: z.string().nullish(),
});
export type ChangeRequestStatusBody = z.input<typeof ChangeRequestStatusBody>;

/** A change request as the service returns it (`resources/change_request.py` `_schema`). */
export const ChangeRequest = z.looseObject({
  id: z.string(),
  status: ChangeRequestStatus,
  title: z.string().nullable(),
  comment: z.string().nullable(),
  operationType: z.string(),
  approvers: z.array(z.string()),
  comments: z.array(
    z.looseObject({ comment: z.string(), user: z.string(), role: z.string(), timestamp: z.number() }),
  ),
});
export type ChangeRequest = z.infer<typeof ChangeRequest>;

/** Body of `PUT /restrictions` (`restriction_microclient.py` `add`; ref §1.1: workspace view only). */
export const RestrictionBody = z.object({
  resource: z.object({
    id: z.string().min(1),
    type: z.literal("workspace", { error: "resource.type must be workspace" }),
  }),
  operations: z.object({ view: z.boolean() }),
  resourcePermissions: z.object({
    view: z.array(
      z.looseObject({ id: z.string().min(1), type: z.string().min(1), name: z.string().optional() }),
    ),
  }),
});
export type RestrictionBody = z.input<typeof RestrictionBody>;
