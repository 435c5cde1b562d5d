"""A flag, its Production targeting and a group, through the native flagstack provider."""

import pulumi
import pulumi_flagstack as flagstack

checkout = flagstack.Flag(
    "checkout",
    workspace="Default",
    name="py-checkout",
    description="The one-page checkout, from Python",
    tags=["owner:payments"],
)

production = flagstack.get_environment_output(workspace="Default", name="Production")

definition = flagstack.FlagDefinition(
    "checkoutProduction",
    workspace="Default",
    flag=checkout.name,
    environment=production.name,
    treatments=[
        flagstack.FlagDefinitionTreatmentArgs(name="on", keys=["qa-bot", "alice@example.com"]),
        flagstack.FlagDefinitionTreatmentArgs(name="off"),
    ],
    default_treatment="off",
    rules=[
        flagstack.FlagDefinitionRuleArgs(
            condition=flagstack.FlagDefinitionRuleConditionArgs(
                matchers=[
                    flagstack.FlagDefinitionRuleConditionMatcherArgs(
                        type=flagstack.FlagDefinitionRuleConditionMatcherType.IN_LIST_STRING,
                        attribute="plan",
                        strings=["enterprise"],
                    )
                ]
            ),
            buckets=[flagstack.FlagDefinitionRuleBucketArgs(treatment="on", size=100)],
        )
    ],
    default_rule=[
        flagstack.FlagDefinitionRuleBucketArgs(treatment="on", size=10),
        flagstack.FlagDefinitionRuleBucketArgs(treatment="off", size=90),
    ],
)

reviewers = flagstack.Group("reviewers", name="py-reviewers", description="Reviews flag changes")

pulumi.export("flagId", checkout.flag_id)
pulumi.export("environmentId", definition.environment_id)
pulumi.export("productionIsProduction", production.production)
pulumi.export("groupId", reviewers.group_id)
