/**
 * The list of kinds: every resource kind of the package, one line each, in the order the
 * registries, the package schema and the docs show them. Each kind is its module's one definition
 * (`export const kind = defineKind(...)`, `./core/kind.ts`); everything that knows kinds reads this
 * list: the dynamic resources' registry below (`flagstack recover`, `flagstack migrate-state`, the
 * policy pack's `check`), the native provider (`./native/kinds.ts`: its kinds, package schema and
 * dispatch), the policy pack's token map, the generated README table and `./index.ts` exports
 * (`npm run generate`), and the kind-wide test suites.
 * @module
 */

import { kind as apiKey } from "./api-key";
import { kind as connector } from "./connector";
import type { AnyHandlers, Kind } from "./core/kind";
import { kind as deliveryEnvironment } from "./delivery-environment";
import { kind as environment } from "./environment";
import { kind as flag } from "./flag";
import { kind as flagDefinition } from "./flag-definition";
import { kind as flagSet } from "./flag-set";
import { kind as group } from "./group";
import { kind as infrastructure } from "./infrastructure";
import { kind as inputSet } from "./input-set";
import { kind as largeSegment } from "./large-segment";
import { kind as organization } from "./organization";
import { kind as pipeline } from "./pipeline";
import { kind as project } from "./project";
import { kind as ruleBasedSegment } from "./rule-based-segment";
import { kind as ruleBasedSegmentDefinition } from "./rule-based-segment-definition";
import { kind as secret } from "./secret";
import { kind as segment } from "./segment";
import { kind as segmentKeys } from "./segment-keys";
import { kind as service } from "./service";
import { kind as trafficType } from "./traffic-type";
import { kind as trafficTypeAttribute } from "./traffic-type-attribute";
import { kind as trigger } from "./trigger";
import { kind as userInvite } from "./user-invite";
import { kind as workspace } from "./workspace";

export type { AnyHandlers, Kind } from "./core/kind";

/** Every kind, one line each. */
export const KIND_LIST: readonly Kind[] = [
  environment,
  trafficType,
  trafficTypeAttribute,
  apiKey,
  workspace,
  flag,
  flagDefinition,
  group,
  userInvite,
  organization,
  project,
  connector,
  pipeline,
  segment,
  segmentKeys,
  largeSegment,
  ruleBasedSegment,
  ruleBasedSegmentDefinition,
  flagSet,
  secret,
  service,
  deliveryEnvironment,
  infrastructure,
  inputSet,
  trigger,
];

/** Each kind's implementation, by dynamic type token. */
export const KINDS: Readonly<Record<string, AnyHandlers>> = Object.fromEntries(
  KIND_LIST.map((k) => [k.token, k.impl]),
);

/** Each kind by dynamic type token. */
export const KINDS_BY_TOKEN: ReadonlyMap<string, Kind> = new Map(KIND_LIST.map((k) => [k.token, k]));
