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

import { type AnyHandlers, checkExampleRefs, type Kind } from "./core/kind";
import { kind as apiKey } from "./flags/api-key";
import { kind as environment } from "./flags/environment";
import { kind as flag } from "./flags/flag";
import { kind as flagDefinition } from "./flags/flag-definition";
import { kind as flagDefinitions } from "./flags/flag-definitions";
import { kind as flagSet } from "./flags/flag-set";
import { kind as group } from "./flags/group";
import { kind as largeSegment } from "./flags/large-segment";
import { kind as restriction } from "./flags/restriction";
import { kind as ruleBasedSegment } from "./flags/rule-based-segment";
import { kind as ruleBasedSegmentDefinition } from "./flags/rule-based-segment-definition";
import { kind as segment } from "./flags/segment";
import { kind as segmentKeys } from "./flags/segment-keys";
import { kind as trafficType } from "./flags/traffic-type";
import { kind as trafficTypeAttribute } from "./flags/traffic-type-attribute";
import { kind as userInvite } from "./flags/user-invite";
import { kind as workspace } from "./flags/workspace";
import { kind as connector } from "./platform/connector";
import { kind as deliveryEnvironment } from "./platform/delivery-environment";
import { kind as environmentGroup } from "./platform/environment-group";
import { kind as infrastructure } from "./platform/infrastructure";
import { kind as inputSet } from "./platform/input-set";
import { kind as organization } from "./platform/organization";
import { kind as pipeline } from "./platform/pipeline";
import { kind as project } from "./platform/project";
import { kind as secret } from "./platform/secret";
import { kind as service } from "./platform/service";
import { kind as serviceOverrides } from "./platform/service-overrides";
import { kind as template } from "./platform/template";
import { kind as trigger } from "./platform/trigger";

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
  flagDefinitions,
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
  restriction,
  secret,
  service,
  deliveryEnvironment,
  environmentGroup,
  serviceOverrides,
  infrastructure,
  inputSet,
  trigger,
  template,
];

// Each example names only kinds of the list, by outputs they have, and no two name each other.
checkExampleRefs(KIND_LIST);

/** Each kind's implementation, by dynamic type token. */
export const KINDS: Readonly<Record<string, AnyHandlers>> = Object.fromEntries(
  KIND_LIST.map((k) => [k.token, k.impl]),
);

/** Each kind by dynamic type token. */
export const KINDS_BY_TOKEN: ReadonlyMap<string, Kind> = new Map(KIND_LIST.map((k) => [k.token, k]));
