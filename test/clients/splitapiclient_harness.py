"""Split's official Python admin client in Harness mode (`harness_mode`, a Harness token sent in
`x-api-key` for every admin call, `http_clients/harness_client.py`) against the flagstack
emulator: a few reads and writes of each API part, one JSON line per operation as
`splitapiclient_driver.py` prints them.

The client's own default base URLs (`HarnessApiClient.BASE_PROD_URL`, `BASE_PROD_URL_V3`,
`BASE_HARNESS_URL`) are re-pointed at the emulator only by scheme and host.

Environment: EMU_URL, HARNESS_TOKEN.
"""

import json
import os
from urllib.parse import urlsplit, urlunsplit

from splitapiclient.main import get_client
from splitapiclient.main.harness_apiclient import HarnessApiClient


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
    }
)


def op(name, fn):
    try:
        fn()
        print(json.dumps({"op": name, "ok": True}), flush=True)
    except Exception as e:  # noqa: BLE001 - every failure is reported
        print(json.dumps({"op": name, "ok": False, "error": str(e)[:300]}), flush=True)


ws = client.workspaces.find("Default")
op("workspaces.find", lambda: ws.id)
op("environments.list", lambda: client.environments.list(ws.id))
op("splits.add", lambda: client.splits.add({"name": "harness_flag", "description": "h"}, "user", ws.id))
op("splits.list", lambda: client.splits.list(ws.id))
op("flag_sets.add", lambda: client.flag_sets.add({"name": "harness_set", "description": "h"}, ws.id))
op("flag_sets.list", lambda: client.flag_sets.list(ws.id))
