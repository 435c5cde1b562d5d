/**
 * Every resource kind of the package, by type token: its lifecycle implementation. The one list
 * that tools working on a stack's state (`flagstack recover`) and, later, other ways of serving
 * the same resources look kinds up in, so a new resource is added here once.
 * @module
 */

import { impl as apiKey } from "./api-key";
import { impl as connector } from "./connector";
import type { ResourceHandlers } from "./core/resource";
import { impl as deliveryEnvironment } from "./delivery-environment";
import { impl as environment } from "./environment";
import { impl as flag } from "./flag";
import { impl as flagDefinition } from "./flag-definition";
import { impl as flagSet } from "./flag-set";
import { impl as group } from "./group";
import { impl as infrastructure } from "./infrastructure";
import { impl as inputSet } from "./input-set";
import { impl as largeSegment } from "./large-segment";
import { impl as organization } from "./organization";
import { impl as pipeline } from "./pipeline";
import { impl as project } from "./project";
import { impl as ruleBasedSegment } from "./rule-based-segment";
import { impl as ruleBasedSegmentDefinition } from "./rule-based-segment-definition";
import { impl as secret } from "./secret";
import { impl as segment } from "./segment";
import { impl as segmentKeys } from "./segment-keys";
import { impl as service } from "./service";
import { impl as trafficType } from "./traffic-type";
import { impl as trafficTypeAttribute } from "./traffic-type-attribute";
import { impl as trigger } from "./trigger";
import {
  API_KEY_TYPE,
  CONNECTOR_TYPE,
  DELIVERY_ENVIRONMENT_TYPE,
  ENVIRONMENT_TYPE,
  FLAG_DEFINITION_TYPE,
  FLAG_SET_TYPE,
  FLAG_TYPE,
  GROUP_TYPE,
  INFRASTRUCTURE_TYPE,
  INPUT_SET_TYPE,
  LARGE_SEGMENT_TYPE,
  ORGANIZATION_TYPE,
  PIPELINE_TYPE,
  PROJECT_TYPE,
  RULE_BASED_SEGMENT_DEFINITION_TYPE,
  RULE_BASED_SEGMENT_TYPE,
  SECRET_TYPE,
  SEGMENT_KEYS_TYPE,
  SEGMENT_TYPE,
  SERVICE_TYPE,
  TRAFFIC_TYPE_ATTRIBUTE_TYPE,
  TRAFFIC_TYPE_TYPE,
  TRIGGER_TYPE,
  USER_INVITE_TYPE,
  WORKSPACE_TYPE,
} from "./types";
import { impl as userInvite } from "./user-invite";
import { impl as workspace } from "./workspace";

/** A resource's implementation with its inputs and outputs erased to plain records. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds implementations of every input and output type.
export type AnyHandlers = ResourceHandlers<any, any>;

/** Each kind's implementation, by type token. */
export const KINDS: Readonly<Record<string, AnyHandlers>> = {
  [ENVIRONMENT_TYPE]: environment,
  [TRAFFIC_TYPE_TYPE]: trafficType,
  [TRAFFIC_TYPE_ATTRIBUTE_TYPE]: trafficTypeAttribute,
  [API_KEY_TYPE]: apiKey,
  [WORKSPACE_TYPE]: workspace,
  [FLAG_TYPE]: flag,
  [FLAG_DEFINITION_TYPE]: flagDefinition,
  [GROUP_TYPE]: group,
  [USER_INVITE_TYPE]: userInvite,
  [ORGANIZATION_TYPE]: organization,
  [PROJECT_TYPE]: project,
  [CONNECTOR_TYPE]: connector,
  [PIPELINE_TYPE]: pipeline,
  [SEGMENT_TYPE]: segment,
  [SEGMENT_KEYS_TYPE]: segmentKeys,
  [LARGE_SEGMENT_TYPE]: largeSegment,
  [RULE_BASED_SEGMENT_TYPE]: ruleBasedSegment,
  [RULE_BASED_SEGMENT_DEFINITION_TYPE]: ruleBasedSegmentDefinition,
  [FLAG_SET_TYPE]: flagSet,
  [SECRET_TYPE]: secret,
  [SERVICE_TYPE]: service,
  [DELIVERY_ENVIRONMENT_TYPE]: deliveryEnvironment,
  [INFRASTRUCTURE_TYPE]: infrastructure,
  [INPUT_SET_TYPE]: inputSet,
  [TRIGGER_TYPE]: trigger,
};
