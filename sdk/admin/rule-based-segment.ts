/**
 * Rule-based segments (ref admin §9.2 `harness_fme_rule_based_segment` and its environment
 * association): a segment at workspace level whose members are not listed but matched, per
 * environment, by rules of the same typed matchers as a flag definition's rules (ref admin §3),
 * minus excluded keys and excluded segments. The paths and shapes are those of the official
 * Python client, splitapiclient 3.5.9 `microclients/rule_based_segment_microclient.py` and
 * `rule_based_segment_definition_microclient.py`:
 * - `POST /rule-based-segments/ws/{ws}/trafficTypes/{tt} {name, description}`;
 * - `GET /rule-based-segments/ws/{ws}?offset&limit` and
 *   `GET /rule-based-segments/ws/{ws}/environments/{env}?offset&limit`: bare arrays, 50 a page in
 *   the Python client; no GET of one segment or one definition (both are found in the lists);
 * - `DELETE /rule-based-segments/ws/{ws}/{name}` → `true`;
 * - `POST /rule-based-segments/{env}/{name}` activates it in an environment (empty rules),
 *   `DELETE` the same path deactivates it;
 * - `PUT /rule-based-segments/ws/{ws}/{name}/environments/{env} {rules, excludedKeys,
 *   excludedSegments, title, comment}` replaces its definition there (a full replace).
 *
 * The routes and most of the part's methods are those both kinds share (`./segment-kinds.ts`).
 * @module
 */
import { z } from "zod";
import { route } from "../core/route";
import { invalidInput, parseInput } from "../core/validate-input";
import { conversionProblems } from "../split/convert";
import { adminPart } from "./part";
import {
  ExcludedSegment,
  IdRef,
  RuleBasedSegmentDefinitionBody,
  SegmentRule,
  validateDefinition,
} from "./schemas";
import { KindSegment, KindSegmentsApi, kindSegmentRoutes } from "./segment-kinds";

/** A rule-based segment at workspace level. */
export const RuleBasedSegment = KindSegment;
export type RuleBasedSegment = KindSegment;

/** A list member the service may send as `null` for none. */
const listOf = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);

/**
 * A rule-based segment's definition in an environment: `{name, environment, trafficType,
 * creationTime, rules, excludedKeys, excludedSegments}` (`resources/rule_based_segment_definition.py`).
 */
export const RuleBasedSegmentDefinition = z.looseObject({
  name: z.string(),
  environment: IdRef,
  trafficType: IdRef,
  creationTime: z.number().int(),
  rules: listOf(SegmentRule),
  excludedKeys: listOf(z.string()),
  excludedSegments: listOf(ExcludedSegment),
});
export type RuleBasedSegmentDefinition = z.infer<typeof RuleBasedSegmentDefinition>;

/** The rule-based segment routes: those both kinds share, and the PUT of a definition. */
export const ruleBasedSegmentEndpoints = {
  ...kindSegmentRoutes("rule-based-segments", RuleBasedSegmentDefinition),
  /** Replaces the definition in the environment (403 where the environment requires approvals). */
  put: route(
    "PUT /internal/api/v2/rule-based-segments/ws/{wsId}/{segment}/environments/{environment}",
    RuleBasedSegmentDefinition,
  ),
};

/**
 * What the service refuses in a rule-based segment's rules, by the rules of a definition's rules
 * (`validateDefinition` and the field each matcher type needs, `conversionProblems`; the
 * emulator's `assertValidSegmentRules` runs the same two): the rules checked as those of a
 * one-treatment definition, so a problem names `rules.<i>.condition.matchers.<j>...` as in a
 * definition.
 */
export function segmentRuleProblems(rules: readonly SegmentRule[]) {
  const bucket = [{ treatment: "in", size: 100 }];
  const asDefinition = {
    treatments: [{ name: "in" }],
    defaultTreatment: "in",
    rules: rules.map((r) => ({ ...r, buckets: bucket })),
    defaultRule: bucket,
  };
  return [...validateDefinition(asDefinition), ...conversionProblems(asDefinition)].filter(
    (p) => p.path[0] === "rules",
  );
}

/** Rule-based segments of a workspace and their definitions per environment: `admin.ruleBasedSegments`. */
export class RuleBasedSegmentsApi extends KindSegmentsApi<typeof RuleBasedSegmentDefinition> {
  protected readonly routes = ruleBasedSegmentEndpoints;
  protected readonly label = "rule-based segment";

  /**
   * The definitions of every rule-based segment active in an environment (id), page after page.
   * @param options.pageSize Definitions per request, 1 to 50 (default 50).
   */
  definitions(
    wsId: string,
    envId: string,
    options: { pageSize?: number } = {},
  ): AsyncIterable<RuleBasedSegmentDefinition> {
    return this.activeIn(wsId, envId, options);
  }

  /** The segment's definition in the environment, or `undefined` when it is not active there (a walk of the list). */
  async definition(
    wsId: string,
    envId: string,
    name: string,
  ): Promise<RuleBasedSegmentDefinition | undefined> {
    return this.activeOne(wsId, envId, name);
  }

  /**
   * Replaces the segment's definition in an environment (id or name) where it is active. The body
   * is checked first: field shapes, then the rules by the rules of a definition's rules.
   * @throws ValidationError naming the field, before anything is sent.
   * @example
   * await admin.ruleBasedSegments.put(ws.id, "pro_users", prod.id, {
   *   rules: [{ condition: { matchers: [{ type: "EQUAL_SET", attribute: "plan", strings: ["pro"] }] } }],
   *   excludedKeys: ["qa-bot"],
   *   title: "Pro users", comment: "plan attribute",
   * });
   */
  async put(
    wsId: string,
    name: string,
    envIdOrName: string,
    body: RuleBasedSegmentDefinitionBody,
  ): Promise<RuleBasedSegmentDefinition> {
    const r = ruleBasedSegmentEndpoints.put;
    const parsed = parseInput(RuleBasedSegmentDefinitionBody, body, r, "rule-based segment definition");
    const problems = segmentRuleProblems(parsed.rules ?? []);
    if (problems.length > 0) throw invalidInput(r, "rule-based segment definition", problems);
    return this.request(r, { wsId, segment: name, environment: envIdOrName }, { body: parsed });
  }
}

/** Rule-based segments of a workspace and their definitions per environment. */
export const part = adminPart("ruleBasedSegments", (core) => new RuleBasedSegmentsApi(core));
