"""The Harness-only micro-clients of Split's Python admin client in Harness mode (`harness_mode`,
`main/harness_apiclient.py`: tokens, API keys, service accounts, users, user groups, roles,
resource groups, role assignments, projects, all on the Harness platform API under `/ng/api`),
each public method once, in an order where each builds on the last; one JSON line per operation
as `splitapiclient_driver.py` prints them.

The client's own default base URLs are re-pointed at the emulator only by scheme and host.

Environment: EMU_URL, HARNESS_TOKEN (a platform key), ACCOUNT_ID (the emulator's account).
"""

import json
import os
import sys
import traceback
from urllib.parse import urlsplit, urlunsplit

from splitapiclient.http_clients.harness_client import HarnessHttpClient
from splitapiclient.main import get_client
from splitapiclient.main.harness_apiclient import HarnessApiClient

# The list methods catch an HTTP error and return what they have (`[]`): such a call did not
# complete, so every error a request raised during an operation fails it, caught or not.
swallowed = []
_make_request = HarnessHttpClient.make_request


# A client loop that asks for the same request again and again never ends (`list_pending`: its URL
# template has no `pageIndex`, so it reads page 0 forever while an invite is pending): the third
# identical request in a row fails the operation instead.
last_request = {"key": None, "count": 0}


def _recording_make_request(self, endpoint, body=None, **kwargs):
    key = json.dumps([endpoint["method"], self._setup_url(endpoint, kwargs), body], sort_keys=True, default=str)
    last_request["count"] = last_request["count"] + 1 if last_request["key"] == key else 1
    last_request["key"] = key
    if last_request["count"] >= 3:
        raise RuntimeError(f"the same request sent 3 times in a row: {endpoint['method']} {endpoint['url_template']}")
    try:
        return _make_request(self, endpoint, body, **kwargs)
    except Exception as e:
        swallowed.append(str(e))
        raise


HarnessHttpClient.make_request = _recording_make_request


def rehost(url):
    """The client's default URL with the emulator's scheme and host, its path unchanged."""
    emu = urlsplit(os.environ["EMU_URL"])
    return urlunsplit((emu.scheme, emu.netloc, *urlsplit(url)[2:]))


client = get_client(
    {
        "harness_mode": True,
        "harness_token": os.environ["HARNESS_TOKEN"],
        "base_url": rehost(HarnessApiClient.BASE_PROD_URL),
        "base_url_v3": rehost(HarnessApiClient.BASE_PROD_URL_V3),
        "harness_base_url": rehost(HarnessApiClient.BASE_HARNESS_URL),
        "account_identifier": os.environ["ACCOUNT_ID"],
        "org_identifier": "default",
    }
)


def op(name, fn):
    """Runs one operation and reports it; returns its result, or None when it failed."""
    swallowed.clear()
    last_request["key"] = None
    try:
        result = fn()
        if swallowed:
            raise RuntimeError(swallowed[0])
        print(json.dumps({"op": name, "ok": True}), flush=True)
        return result
    except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the run
        if os.environ.get("DRIVER_TRACE"):
            traceback.print_exc(file=sys.stderr)
        print(json.dumps({"op": name, "ok": False, "error": (str(e) or type(e).__name__)[:300]}), flush=True)
        return None


P = "split_admin"  # the project the project-scoped objects live in

# Projects (`/ng/api/projects`).
hp = client.harness_project
op("harness_project.create", lambda: hp.create({"project": {"identifier": P, "name": "Split admin", "orgIdentifier": "default"}}))
op("harness_project.list", lambda: hp.list())
op("harness_project.get", lambda: hp.get(P))
op("harness_project.update", lambda: hp.update(P, {"project": {"identifier": P, "name": "Split admin renamed", "orgIdentifier": "default"}}))

# Service accounts (`/ng/api/serviceaccount`), their API keys (`/ng/api/apikey`) and tokens (`/ng/api/token`).
sa = client.service_account
SA = "split_sa"
op("service_account.create", lambda: sa.create({"identifier": SA, "name": SA, "email": "split_sa@service.harness.io", "accountIdentifier": os.environ["ACCOUNT_ID"]}))
op("service_account.list", lambda: sa.list())
op("service_account.get", lambda: sa.get(SA))
op("service_account.update", lambda: sa.update(SA, {"identifier": SA, "name": "split sa", "email": "split_sa@service.harness.io", "accountIdentifier": os.environ["ACCOUNT_ID"]}))

ak = client.harness_apikey
AK = "split_key"
# An API key's and a token's body names where it lives (harness-core `ApiKeyService.createApiKey(ApiKeyDTO)`;
# the Go SDK's CreateApiKey and CreateToken send only the account in the query): the service account's organization.
op("harness_apikey.create", lambda: ak.create({"identifier": AK, "name": AK, "apiKeyType": "SERVICE_ACCOUNT", "parentIdentifier": SA, "accountIdentifier": os.environ["ACCOUNT_ID"], "orgIdentifier": "default"}))
op("harness_apikey.list", lambda: ak.list(parent_identifier=SA))
op("harness_apikey.get", lambda: ak.get(AK, parent_identifier=SA))
op("harness_apikey.add_permissions", lambda: ak.add_permissions(AK, [{"roleIdentifier": "_account_viewer", "resourceGroupIdentifier": "_all_account_level_resources"}]))

tk = client.token
TK = "split_token"
op("token.create", lambda: tk.create({"identifier": TK, "name": TK, "apiKeyIdentifier": AK, "parentIdentifier": SA, "apiKeyType": "SERVICE_ACCOUNT", "accountIdentifier": os.environ["ACCOUNT_ID"], "orgIdentifier": "default"}))
op("token.list", lambda: tk.list())
op("token.get", lambda: tk.get(TK))
op("token.update", lambda: tk.update(TK, {"identifier": TK, "name": "split token", "apiKeyIdentifier": AK, "parentIdentifier": SA, "apiKeyType": "SERVICE_ACCOUNT", "accountIdentifier": os.environ["ACCOUNT_ID"], "orgIdentifier": "default"}))
op("token.rotate", lambda: tk.rotate(TK, SA, AK))

# User groups (`/ng/api/user-groups`), users (`/ng/api/user`, `/ng/api/invites`).
hg = client.harness_group
HG = "split_group"
op("harness_group.create", lambda: hg.create({"identifier": HG, "name": HG, "accountIdentifier": os.environ["ACCOUNT_ID"], "orgIdentifier": "default"}))
op("harness_group.list", lambda: hg.list())
op("harness_group.get", lambda: hg.get(HG))
op("harness_group.update", lambda: hg.update({"identifier": HG, "name": "split group", "accountIdentifier": os.environ["ACCOUNT_ID"], "orgIdentifier": "default"}))

hu = client.harness_user
invited = op("harness_user.invite", lambda: hu.invite({"emails": ["ana@example.com"], "userGroups": [HG], "roleBindings": []}))
op("harness_user.list_pending", lambda: hu.list_pending())
users = op("harness_user.list", lambda: hu.list())
uid = None
if users:
    uid = getattr(users[0], "_uuid", None) or getattr(users[0], "_id", None)
op("harness_user.get", lambda: hu.get(uid))
op("harness_user.update", lambda: hu.update(uid, {"name": "Ana"}))
op("harness_user.add_user_to_groups", lambda: hu.add_user_to_groups(uid, [HG]))
# The pending invite's id, from one request of the client's own `list_pending` endpoint (its loop
# never ends, see above).
pending_endpoint = dict(hu._endpoint["list_pending"])
pending_endpoint["url_template"] = pending_endpoint["url_template"].replace("&projectIdentifier={projectIdentifier}", "")
pending = hu._http_client.make_request(pending_endpoint, accountIdentifier=os.environ["ACCOUNT_ID"], orgIdentifier="default")
invite_id = pending["data"]["content"][0]["id"] if pending["data"]["content"] else None
op("harness_user.delete_pending", lambda: hu.delete_pending(invite_id))

# Roles (`/authz/api/roles`), resource groups (`/resourcegroup/api/v2/resourcegroup`), role assignments.
ro = client.role
RO = "split_role"
op("role.create", lambda: ro.create({"identifier": RO, "name": RO, "permissions": ["core_project_view"]}))
op("role.list", lambda: ro.list())
op("role.get", lambda: ro.get(RO))
op("role.update", lambda: ro.update(RO, {"identifier": RO, "name": "split role", "permissions": ["core_project_view"]}))

rg = client.resource_group
RG = "split_rg"
op("resource_group.create", lambda: rg.create({"resourceGroup": {"identifier": RG, "name": RG, "accountIdentifier": os.environ["ACCOUNT_ID"]}}))
op("resource_group.list", lambda: rg.list())
op("resource_group.get", lambda: rg.get(RG))
op("resource_group.update", lambda: rg.update(RG, {"resourceGroup": {"identifier": RG, "name": "split rg", "accountIdentifier": os.environ["ACCOUNT_ID"]}}))

ra = client.role_assignment
created_ra = op("role_assignment.create", lambda: ra.create({"resourceGroupIdentifier": RG, "roleIdentifier": RO, "principal": {"identifier": HG, "type": "USER_GROUP"}}))
RA = getattr(created_ra, "_identifier", None) if created_ra is not None else None
op("role_assignment.list", lambda: ra.list())
op("role_assignment.get", lambda: ra.get(RA))
op("role_assignment.delete", lambda: ra.delete(RA))

# Deletions, last: what was made above goes.
op("resource_group.delete", lambda: rg.delete(RG))
op("role.delete", lambda: ro.delete(RO))
op("harness_group.delete", lambda: hg.delete(HG))
op("token.delete", lambda: tk.delete(TK))
op("harness_apikey.delete", lambda: ak.delete(AK, parent_identifier=SA))
op("service_account.delete", lambda: sa.delete(SA))
op("harness_project.delete", lambda: hp.delete(P))
