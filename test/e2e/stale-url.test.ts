/**
 * `pulumi refresh` and `pulumi destroy` configure the provider from the config recorded at the
 * last `pulumi up` (standard Pulumi behaviour for default providers). After
 * `pulumi config set flagstack:adminApiUrl <new>`, they still dial the old URL; the connection
 * error then names the URL, where it came from, what the stack's config says now, and how to
 * switch (`--run-program`, or `pulumi up` first).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordingProxy, startRecordingProxy } from "../provider/harness";
import { EngineStack } from "./harness";

describe("a refresh after the admin API URL changed in the stack config", () => {
  let s: EngineStack;
  let proxy: RecordingProxy;

  beforeAll(async () => {
    s = await EngineStack.open({ program: "test/e2e/programs/stack" });
    proxy = await startRecordingProxy(s.emu.url);
    await s.setConfig({ "flagstack:adminApiUrl": proxy.url, "flagstack:maxRetries": "0" });
    await s.setSpec({ groups: { team: { name: "stale-url-team" } } });
    expect((await s.up()).result.summary.result).toBe("succeeded");
    // The old address stops answering; the stack's config now points at the emulator itself.
    await proxy.stop();
    await s.setConfig({ "flagstack:adminApiUrl": s.emu.url });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("fails naming the recorded URL, the stack config's new one, and how to switch", async () => {
    const message = await s.refresh().then(
      () => "succeeded",
      (e: Error) => e.message,
    );
    expect(message).toContain(
      `(base URL ${proxy.url} from the stack config flagstack:adminApiUrl as recorded at the last \`pulumi up\`; the stack's config now says ${s.emu.url}: run \`pulumi refresh --run-program\` or \`pulumi destroy --run-program\` to use it, or \`pulumi up\` first)`,
    );
  });

  it("pulumi refresh --run-program uses the new URL", async () => {
    const { result } = await s.refresh({ runProgram: true });
    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.resourceChanges).toEqual({ same: 2 });
  });
});
