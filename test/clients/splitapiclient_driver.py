"""Drives Split's official Python admin client (`splitapiclient`) against the flagstack emulator.

Performs every operation the client offers (each public method of its micro-clients, plus the
resource methods that send a request of their own), in an order where each builds on the last,
and prints one JSON line per operation: {"op": "<area>.<method>", "ok": true|false, "error": ...}.

The client's own default base URLs (`SyncApiClient.BASE_PROD_URL`, `BASE_PROD_URL_V3`) are
re-pointed at the emulator only by scheme and host: every path is the one the client sends to the
real service.

Environment: EMU_URL (the emulator), SPLIT_KEY (an admin key), SPLIT_APPROVER_KEY (a second admin
key, to approve change requests), WORKDIR (a scratch directory).
"""

import json
import os
import sys
import traceback
import urllib.request
from urllib.parse import urlsplit, urlunsplit

from splitapiclient.main import get_client
from splitapiclient.main.sync_apiclient import SyncApiClient
from splitapiclient.resources import Attribute, Environment, Identity

WORKDIR = os.environ["WORKDIR"]
EMU_URL = os.environ["EMU_URL"]


def rehost(url):
    """The client's default URL with the emulator's scheme and host, its path unchanged."""
    emu = urlsplit(EMU_URL)
    return urlunsplit((emu.scheme, emu.netloc, *urlsplit(url)[2:]))


BASE = rehost(SyncApiClient.BASE_PROD_URL)
BASE_V3 = rehost(SyncApiClient.BASE_PROD_URL_V3)
print(json.dumps({"base": BASE, "base_v3": BASE_V3}), file=sys.stderr, flush=True)

client = get_client({"apikey": os.environ["SPLIT_KEY"], "base_url": BASE, "base_url_v3": BASE_V3})
approver = get_client(
    {"apikey": os.environ["SPLIT_APPROVER_KEY"], "base_url": BASE, "base_url_v3": BASE_V3}
)

state = {}


def op(name, fn):
    """Runs one operation and reports it; returns its result, or None when it failed."""
    try:
        result = fn()
        print(json.dumps({"op": name, "ok": True}), flush=True)
        return result
    except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the run
        detail = str(e) or type(e).__name__
        if os.environ.get("DRIVER_TRACE"):
            traceback.print_exc(file=sys.stderr)
        print(json.dumps({"op": name, "ok": False, "error": detail[:300]}), flush=True)
        return None


def need(value, what):
    """A prerequisite of an operation; a missing one fails the operation that needs it."""
    if value is None:
        raise RuntimeError(f"prerequisite missing: {what}")
    return value


def segment_ops(area, segments, definitions, name, activate):
    """Creates, lists, finds and activates a segment of one kind, then lists and finds its
    definition in Production; returns that definition (None when it failed)."""
    op(f"{area}.add", lambda: segments.add({"name": name, "description": area}, "user", WS))
    op(f"{area}.list", lambda: need(segments.list(WS), area))
    op(f"{area}.find", lambda: need(segments.find(name, WS), name))
    op(f"{area}.add_to_environment", activate)
    defs_area = area.replace("segments", "segment_definitions")
    op(f"{defs_area}.list", lambda: need(definitions.list(PROD, WS), defs_area))
    return op(f"{defs_area}.find", lambda: need(definitions.find(name, PROD, WS), f"{name} in Production"))


def control(method, path):
    """Calls an emulator control route (the invited person accepting an invitation)."""
    req = urllib.request.Request(EMU_URL + path, method=method, data=b"" if method != "GET" else None)
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read() or b"null")


DEFINITION = {
    "treatments": [
        {"name": "on", "configurations": "{}", "description": ""},
        {"name": "off", "configurations": "{}", "description": ""},
    ],
    "defaultTreatment": "off",
    "baselineTreatment": "off",
    "trafficAllocation": 100,
    "rules": [
        {
            "condition": {"combiner": "AND", "matchers": [{"type": "IN_SEGMENT", "string": "py_segment"}]},
            "buckets": [{"treatment": "on", "size": 100}],
        }
    ],
    "defaultRule": [{"treatment": "off", "size": 100}],
}

RBS_RULES = [
    {
        "condition": {
            "combiner": "AND",
            "matchers": [{"type": "IN_LIST_STRING", "attribute": "country", "strings": ["NL", "DE"]}],
        }
    }
]

# --- workspaces, environments, traffic types -------------------------------------------------
ws = client.workspaces
op("workspaces.list", lambda: need(ws.list(), "workspaces"))
default = op("workspaces.find", lambda: need(ws.find("Default"), "workspace Default"))
new_ws = op("workspaces.add", lambda: ws.add({"name": "PyWorkspace", "requiresTitleAndComments": False}))
op("workspaces.update", lambda: ws.update(need(new_ws, "workspace").id, "name", "PyWorkspace2"))
op("workspaces.get_rollout_statuses", lambda: need(ws.get_rollout_statuses(need(default, "ws").id), "statuses"))
WS = default.id if default else "Default"

envs = client.environments
op("environments.list", lambda: need(envs.list(WS), "environments"))
prod = op("environments.find", lambda: need(envs.find("Production", WS), "environment Production"))
PROD = prod.id if prod else "Production"
temp_env = op("environments.add", lambda: envs.add({"name": "PyTemp", "production": False}, WS))
op("environments.update", lambda: envs.update(need(temp_env, "env").id, WS, "production", True))
op("Environment.update_name", lambda: need(temp_env, "env").update_name("PyTemp2", apiclient=client))

tts = client.traffic_types
op("traffic_types.list", lambda: need(tts.list(WS), "traffic types"))
user_tt = op("traffic_types.find", lambda: need(tts.find("user", WS), "traffic type user"))
TT = user_tt.id if user_tt else "user"

# --- attributes and identities ---------------------------------------------------------------
attrs = client.attributes
attr = Attribute(
    {
        "id": "country",
        "trafficTypeId": TT,
        "displayName": "Country",
        "description": "where the user lives",
        "dataType": "STRING",
        "isSearchable": False,
        "workspaceId": WS,
        "suggestedValues": ["NL", "DE"],
    }
)
op("attributes.save", lambda: need(attrs.save(attr), "attribute"))
op("attributes.list", lambda: need(attrs.list(TT, WS), "attributes"))
found_attr = op("attributes.find", lambda: need(attrs.find("country", TT, WS), "attribute country"))
op(
    "attributes.import_attributes_from_json",
    lambda: attrs.import_attributes_from_json(
        WS,
        TT,
        [
            {"id": "plan", "displayName": "Plan", "description": "", "dataType": "STRING", "suggestedValues": []},
            {"id": "age", "displayName": "Age", "description": "", "dataType": "NUMBER", "suggestedValues": []},
        ],
    ),
)
op("attributes.delete", lambda: attrs.delete("age", WS, TT))
op("attributes.delete_by_instance", lambda: attrs.delete_by_instance(need(attrs.find("plan", TT, WS), "plan")))

ids = client.identities
ident = {"key": "user-1", "trafficTypeId": TT, "environmentId": PROD, "values": {"country": "NL"}}
op("identities.save", lambda: need(ids.save(ident), "identity"))
op(
    "identities.save_all",
    lambda: need(
        ids.save_all(
            [
                {"key": "user-2", "trafficTypeId": TT, "environmentId": PROD, "values": {"country": "DE"}},
                {"key": "user-3", "trafficTypeId": TT, "environmentId": PROD, "values": {"country": "NL"}},
            ]
        ),
        "bulk result",
    ),
)
op("identities.update", lambda: ids.update({**ident, "values": {"country": "DE"}}))
op("identities.patch", lambda: ids.patch({**ident, "values": {"plan": "gold"}}))
op("identities.delete", lambda: ids.delete(TT, PROD, "user-2"))
op("identities.delete_by_instance", lambda: ids.delete_by_instance(Identity({**ident, "key": "user-3"})))

# --- segments and their keys -----------------------------------------------------------------
segs, sdefs = client.segments, client.segment_definitions
sdef = segment_ops("segments", segs, sdefs, "py_segment", lambda: segs.add_to_environment("py_segment", PROD))
op(
    "segment_definitions.import_keys_from_json",
    lambda: sdefs.import_keys_from_json(
        "py_segment", PROD, True, {"keys": ["a", "b", "c"], "title": "t", "comment": "c"}
    ),
)
op("segment_definitions.get_keys", lambda: need(sdefs.get_keys("py_segment", PROD), "keys"))
op("segment_definitions.get_key_count", lambda: sdefs.get_key_count("py_segment", PROD))
op("segment_definitions.remove_keys", lambda: sdefs.remove_keys("py_segment", PROD, {"keys": ["c"], "comment": "c"}))
op(
    "SegmentDefinition.export_keys_to_csv",
    lambda: need(sdef, "segment definition").export_keys_to_csv(os.path.join(WORKDIR, "keys.csv"), apiclient=client),
)

# --- large segments --------------------------------------------------------------------------
lsegs, ldefs = client.large_segments, client.large_segment_definitions
ldef = segment_ops("large_segments", lsegs, ldefs, "py_large", lambda: lsegs.add_to_environment("py_large", PROD, WS))
csv_path = os.path.join(WORKDIR, "members.csv")
with open(csv_path, "w") as f:
    f.write("key\nk1\nk2\n")
upload = op(
    "large_segment_definitions.submit_upload",
    lambda: need(ldefs.submit_upload(WS, PROD, "py_large", "upload", "first members", []), "upload"),
)
op(
    "large_segment_definitions.upload_file",
    lambda: need(ldefs.upload_file(need(upload, "upload"), csv_path), "response").raise_for_status(),
)
op(
    "LargeSegmentDefinition.submit_upload",
    lambda: need(ldef, "large segment definition")
    .submit_upload("again", "second upload", [], csv_path, apiclient=client)
    .raise_for_status(),
)
op("large_segment_definitions.remove_all_members", lambda: ldefs.remove_all_members(WS, PROD, "py_large", "t", "c", []))

# --- rule-based segments ---------------------------------------------------------------------
rsegs, rdefs = client.rule_based_segments, client.rule_based_segment_definitions
rdef = segment_ops("rule_based_segments", rsegs, rdefs, "py_rbs", lambda: rsegs.add_to_environment("py_rbs", PROD, WS))
op(
    "rule_based_segment_definitions.update",
    lambda: rdefs.update(
        "py_rbs", PROD, WS, {"rules": RBS_RULES, "excludedKeys": ["bot"], "excludedSegments": [], "title": "t"}
    ),
)

# --- flags and definitions -------------------------------------------------------------------
splits = client.splits
op("splits.add", lambda: splits.add({"name": "py_flag", "description": "from python"}, "user", WS))
op("splits.list", lambda: need(splits.list(WS), "flags"))
op("splits.find", lambda: need(splits.find("py_flag", WS), "flag"))
op("splits.get", lambda: splits.get("py_flag", WS))
op("splits.update_description", lambda: splits.update_description("py_flag", "new words", WS))
op("splits.associate_tags", lambda: splits.associate_tags("py_flag", ["python", "client"], WS))
op("splits.add_to_environment", lambda: splits.add_to_environment("py_flag", PROD, WS, DEFINITION))

defs = client.split_definitions
op("split_definitions.list", lambda: need(defs.list(PROD, WS), "definitions"))
op("split_definitions.find", lambda: need(defs.find("py_flag", PROD, WS), "definition"))
pdef = op("split_definitions.get_definition", lambda: defs.get_definition("py_flag", PROD, WS))
op(
    "split_definitions.update_definition",
    lambda: defs.update_definition("py_flag", PROD, WS, {**DEFINITION, "trafficAllocation": 50}),
)
op("split_definitions.kill", lambda: defs.kill("py_flag", PROD, WS))
op("split_definitions.restore", lambda: defs.restore("py_flag", PROD, WS))

# --- flag sets -------------------------------------------------------------------------------
fsets = client.flag_sets
fset = op("flag_sets.add", lambda: fsets.add({"name": "py_set", "description": "python's"}, WS))
op("flag_sets.list", lambda: need(fsets.list(WS), "flag sets"))
op("flag_sets.find", lambda: need(fsets.find("py_set", WS), "flag set"))
op("flag_sets.get", lambda: need(fsets.get(need(fset, "flag set").id), "flag set").name)

# --- change requests (approvals required in an environment) ----------------------------------
gated = op(
    "environments.add (approvals required)",
    lambda: envs.add(
        {"name": "PyGated", "production": True, "changePermissions": {"areApprovalsRequired": True}}, WS
    ),
)
GATED = gated.id if gated else "PyGated"
crs = client.change_requests
op(
    "change_requests.submit_change_request",
    lambda: crs.submit_change_request(
        GATED,
        WS,
        {
            "split": {"name": "py_flag", **DEFINITION},
            "operationType": "CREATE",
            "title": "turn it on",
            "comment": "please",
            "approvers": [],
        },
    ),
)
op("change_requests.list", lambda: need(crs.list(GATED, "REQUESTED"), "change requests"))
found_cr = op("change_requests.find", lambda: need(crs.find(split_name="py_flag", environment_id=GATED, status="REQUESTED"), "cr"))
op(
    "change_requests.update_status",
    lambda: approver.change_requests.update_status(need(found_cr, "cr")[0].id, "APPROVED", "looks good"),
)
op(
    "SplitDefinition.submit_change_request",
    lambda: need(pdef, "definition").submit_change_request(
        {**DEFINITION, "trafficAllocation": 100}, "UPDATE", "t", "c", [], None, apiclient=client
    ),
)
op(
    "SegmentDefinition.submit_change_request",
    lambda: need(sdef, "segment definition").submit_change_request(
        ["x"], "CREATE", "t", "c", [], None, WS, apiclient=client
    ),
)
op(
    "RuleBasedSegmentDefinition.submit_change_request",
    lambda: need(rdef, "rule-based definition").submit_change_request(
        RBS_RULES, [], [], "UPDATE", "t", "c", [], WS, apiclient=client
    ),
)

# --- users, groups, API keys, restrictions ---------------------------------------------------
users = client.users
op("users.invite_user", lambda: users.invite_user({"email": "py@example.com", "groups": []}))
op("users.list", lambda: need(users.list("PENDING"), "users"))
invited = op("users.find", lambda: need(users.find("py@example.com"), "user"))
groups = client.groups
group = op("groups.create_group", lambda: groups.create_group({"name": "py_group", "description": "pythonistas"}))
op("groups.list", lambda: need(groups.list(), "groups"))
op("groups.find", lambda: need(groups.find("py_group"), "group"))
op("groups.update_group", lambda: groups.update_group(need(group, "group").id, {"name": "py_group", "description": "d"}))
op(
    "users.update_user_group",
    lambda: users.update_user_group(
        need(invited, "user").id,
        [{"op": "add", "path": "/groups/0", "value": {"id": need(group, "group").id, "type": "group"}}],
    ),
)
active = op(
    "users.update_user",
    lambda: users.update_user(
        control("POST", f"/_emulator/users/{need(invited, 'user').id}/accept")["id"],
        {"email": "py@example.com", "name": "Py Thon", "status": "DEACTIVATED", "2fa": False, "type": "user"},
    ),
)
rs = client.restrictions
op("restrictions.add", lambda: rs.add("workspace", WS, [{"id": need(group, "group").id, "type": "group"}]))
op("restrictions.list", lambda: rs.list("workspace", WS))


def drop_invitation():
    users.invite_user({"email": "py2@example.com", "groups": []})
    return users.delete(need(users.find("py2@example.com"), "user").id)


op("users.delete", drop_invitation)
op("groups.delete_group", lambda: groups.delete_group(need(group, "group").id))

keys = client.apikeys
made = op("apikeys.create_apikey", lambda: keys.create_apikey("py key", "server_side", [PROD], WS))
op("apikeys.delete_apikey", lambda: keys.delete_apikey(need(made, "key")._id))

# --- removals --------------------------------------------------------------------------------
op("flag_sets.delete", lambda: fsets.delete(need(fset, "flag set").id))
op("splits.remove_from_environment", lambda: splits.remove_from_environment("py_flag", PROD, "gone", "remove", WS))
op("splits.delete", lambda: splits.delete("py_flag", WS))
op("rule_based_segment_definitions.delete", lambda: rdefs.delete("py_rbs", PROD))
op("rule_based_segments.add_to_environment (again)", lambda: rsegs.add_to_environment("py_rbs", PROD, WS))
op("rule_based_segments.remove_from_environment", lambda: rsegs.remove_from_environment("py_rbs", PROD))
op("rule_based_segments.delete", lambda: rsegs.delete("py_rbs", WS))
op("large_segments.remove_from_environment", lambda: lsegs.remove_from_environment("py_large", PROD))
op("large_segments.delete", lambda: lsegs.delete("py_large", WS))
op("segments.remove_from_environment", lambda: segs.remove_from_environment("py_segment", PROD))
op("segments.delete", lambda: segs.delete("py_segment", WS))


def drop_environment(env):
    for token in env._apiTokens or []:
        keys.delete_apikey(token["id"])
    return envs.delete(env.id, WS)


op("environments.delete", lambda: drop_environment(need(temp_env, "env")))


def drop_workspace(w):
    for tt in tts.list(w.id):
        tts.delete(tt.id)
    return ws.delete(w.id)


op("traffic_types.delete", lambda: tts.delete(need(tts.find("user", need(new_ws, "ws").id), "tt").id))
op("workspaces.delete", lambda: drop_workspace(need(new_ws, "ws")))
