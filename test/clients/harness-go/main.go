// Drives the emulator with two public Harness Go clients, unchanged: harness-go-sdk v0.8.24
// (package nextgen, the version the Harness Terraform provider pins; its pipeline list and the
// earlier raw-YAML create, next to the v2 create, read, update and delete) and
// harness-openapi-go-client (the v1 API that the provider's pipeline and input set resources call,
// with the requests the provider sends: terraform-provider-harness
// internal/service/pipeline/pipeline/resource_pipeline.go, input_set/input_set_resource.go).
// One JSON line per operation: {"op": "...", "ok": true|false, "error": "..."}.
//
// Environment: HARNESS_ENDPOINT (the emulator's URL), HARNESS_ACCOUNT_ID, HARNESS_PLATFORM_API_KEY
// (read by both clients' NewConfiguration), and PROJECT (an existing project of org "default").
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"

	"github.com/antihax/optional"
	sdk "github.com/harness/harness-go-sdk/harness/nextgen"
	oapi "github.com/harness/harness-openapi-go-client/nextgen"
)

func report(op string, err error) {
	line := map[string]interface{}{"op": op, "ok": err == nil}
	if err != nil {
		msg := err.Error()
		if se, ok := err.(sdk.GenericSwaggerError); ok {
			msg += ": " + string(se.Body())
		}
		if oe, ok := err.(oapi.GenericSwaggerError); ok {
			msg += ": " + string(oe.Body())
		}
		if len(msg) > 300 {
			msg = msg[:300]
		}
		line["error"] = msg
	}
	out, _ := json.Marshal(line)
	fmt.Println(string(out))
}

func check(cond bool, format string, args ...interface{}) error {
	if cond {
		return nil
	}
	return fmt.Errorf(format, args...)
}

func status(res *http.Response) int {
	if res == nil {
		return 0
	}
	return res.StatusCode
}

func pipelineYaml(id, project, extra string) string {
	return fmt.Sprintf(`pipeline:
  name: %s
  identifier: %s
  orgIdentifier: default
  projectIdentifier: %s
%s  stages:
    - stage:
        name: build
        identifier: build
        type: Custom
        spec:
          execution:
            steps:
              - step:
                  type: ShellScript
                  name: hello
                  identifier: hello
                  timeout: 10m
                  spec:
                    shell: Bash
                    source:
                      type: Inline
                      spec:
                        script: echo hello
`, id, id, project, extra)
}

func inputSetYaml(id, project, pipeline, value string) string {
	return fmt.Sprintf(`inputSet:
  name: %s
  identifier: %s
  orgIdentifier: default
  projectIdentifier: %s
  pipeline:
    identifier: %s
    variables:
      - name: key
        type: String
        value: %s
`, id, id, project, pipeline, value)
}

func main() {
	account := os.Getenv("HARNESS_ACCOUNT_ID")
	project := os.Getenv("PROJECT")
	org := "default"

	// harness-go-sdk v0.8.24, package nextgen.
	s := sdk.NewAPIClient(sdk.NewConfiguration())
	sctx := context.WithValue(context.Background(), sdk.ContextAPIKey, sdk.APIKey{Key: os.Getenv("HARNESS_PLATFORM_API_KEY")})

	r1, _, err := s.PipelinesApi.PostPipeline(sctx, pipelineYaml("go_legacy", project, ""), account, org, project, nil)
	report("PipelinesApi.PostPipeline", firstErr(err, func() error { return check(r1.Data == "go_legacy", "data %q", r1.Data) }))
	r2, _, err := s.PipelinesApi.PostPipelineV2(sctx, pipelineYaml("go_v2", project, ""), account, org, project, nil)
	report("PipelinesApi.PostPipelineV2", firstErr(err, func() error { return check(r2.Data != nil && r2.Data.Identifier == "go_v2", "data %+v", r2.Data) }))
	r3, _, err := s.PipelinesApi.GetPipeline(sctx, account, org, project, "go_legacy", nil)
	report("PipelinesApi.GetPipeline", firstErr(err, func() error {
		return check(r3.Data != nil && r3.Data.YamlPipeline == pipelineYaml("go_legacy", project, ""), "yaml differs")
	}))
	r4, _, err := s.PipelinesApi.GetPipelineList(sctx, account, org, project, &sdk.PipelinesApiGetPipelineListOpts{
		Body: optional.NewInterface(sdk.PipelineFilterProperties{FilterType: "PipelineSetup"}),
		Page: optional.NewInt32(0),
		Size: optional.NewInt32(25),
	})
	report("PipelinesApi.GetPipelineList", firstErr(err, func() error {
		if r4.Data == nil {
			return fmt.Errorf("no data")
		}
		ids := []string{}
		for _, p := range r4.Data.Content {
			ids = append(ids, p.Identifier)
		}
		return check(r4.Data.TotalElements == 2 && len(ids) == 2, "list %v (total %d)", ids, r4.Data.TotalElements)
	}))
	r5, _, err := s.PipelinesApi.UpdatePipelineV2(sctx, pipelineYaml("go_v2", project, "  description: changed\n"), account, org, project, "go_v2",
		&sdk.PipelinesApiUpdatePipelineV2Opts{IfMatch: optional.NewString("0")})
	report("PipelinesApi.UpdatePipelineV2", firstErr(err, func() error { return check(r5.Data != nil && r5.Data.Identifier == "go_v2", "data %+v", r5.Data) }))
	for _, id := range []string{"go_legacy", "go_v2"} {
		r6, _, err := s.PipelinesApi.DeletePipeline(sctx, account, org, project, id, nil)
		report("PipelinesApi.DeletePipeline "+id, firstErr(err, func() error { return check(r6.Data, "data %v", r6.Data) }))
	}

	// harness-openapi-go-client, the v1 API, as the Terraform provider calls it.
	o := oapi.NewAPIClient(oapi.NewConfiguration())
	octx := context.WithValue(context.Background(), oapi.ContextAPIKey, oapi.APIKey{Key: os.Getenv("HARNESS_PLATFORM_API_KEY")})
	acct := optional.NewString(account)

	_, res, err := o.PipelinesApi.CreatePipeline(octx, oapi.PipelineCreateRequestBody{
		Identifier:   "tf_pipe",
		Name:         "tf_pipe",
		PipelineYaml: pipelineYaml("tf_pipe", project, ""),
		GitDetails:   &oapi.GitCreateDetails{StoreType: "INLINE"},
	}, org, project, &oapi.PipelinesApiCreatePipelineOpts{HarnessAccount: acct})
	report("v1 PipelinesApi.CreatePipeline", firstErr(err, func() error { return check(status(res) == 201, "status %d", status(res)) }))
	g, _, err := o.PipelinesApi.GetPipeline(octx, org, project, "tf_pipe", &oapi.PipelinesApiGetPipelineOpts{HarnessAccount: acct, BranchName: optional.NewString("")})
	report("v1 PipelinesApi.GetPipeline", firstErr(err, func() error {
		return check(g.Identifier == "tf_pipe" && g.PipelineYaml == pipelineYaml("tf_pipe", project, "") && g.Org == org, "got %+v", g)
	}))
	changed := pipelineYaml("tf_pipe", project, "  description: from terraform\n")
	_, _, err = o.PipelinesApi.UpdatePipeline(octx, oapi.PipelineUpdateRequestBody{
		Identifier: "tf_pipe", Name: "tf_pipe", Description: "from terraform", PipelineYaml: changed,
	}, org, project, "tf_pipe", &oapi.PipelinesApiUpdatePipelineOpts{HarnessAccount: acct})
	report("v1 PipelinesApi.UpdatePipeline", err)
	l, _, err := o.PipelinesApi.ListPipelines(octx, org, project, &oapi.PipelinesApiListPipelinesOpts{HarnessAccount: acct, Page: optional.NewInt32(0)})
	report("v1 PipelinesApi.ListPipelines", firstErr(err, func() error { return check(len(l) == 1 && l[0].Identifier == "tf_pipe", "list %+v", l) }))

	_, res, err = o.InputSetsApi.CreateInputSet(octx, oapi.InputSetCreateRequestBody{
		Identifier: "tf_set", Name: "tf_set", InputSetYaml: inputSetYaml("tf_set", project, "tf_pipe", "v"),
	}, "tf_pipe", org, project, &oapi.InputSetsApiCreateInputSetOpts{HarnessAccount: acct})
	report("v1 InputSetsApi.CreateInputSet", firstErr(err, func() error { return check(status(res) == 201, "status %d", status(res)) }))
	is, _, err := o.InputSetsApi.GetInputSet(octx, org, project, "tf_set", "tf_pipe", &oapi.InputSetsApiGetInputSetOpts{HarnessAccount: acct})
	report("v1 InputSetsApi.GetInputSet", firstErr(err, func() error { return check(is.InputSetYaml == inputSetYaml("tf_set", project, "tf_pipe", "v"), "got %+v", is) }))
	up, _, err := o.InputSetsApi.UpdateInputSet(octx, oapi.InputSetUpdateRequestBody{
		Identifier: "tf_set", Name: "tf_set", InputSetYaml: inputSetYaml("tf_set", project, "tf_pipe", "w"),
	}, "tf_pipe", org, project, "tf_set", &oapi.InputSetsApiUpdateInputSetOpts{HarnessAccount: acct})
	report("v1 InputSetsApi.UpdateInputSet", firstErr(err, func() error { return check(up.InputSetYaml == inputSetYaml("tf_set", project, "tf_pipe", "w"), "got %+v", up) }))
	ls, _, err := o.InputSetsApi.ListInputSets(octx, org, project, "tf_pipe", &oapi.InputSetsApiListInputSetsOpts{HarnessAccount: acct})
	report("v1 InputSetsApi.ListInputSets", firstErr(err, func() error { return check(len(ls) == 1 && ls[0].Identifier == "tf_set", "list %+v", ls) }))
	res, err = o.InputSetsApi.DeleteInputSet(octx, org, project, "tf_set", "tf_pipe", &oapi.InputSetsApiDeleteInputSetOpts{HarnessAccount: acct})
	report("v1 InputSetsApi.DeleteInputSet", firstErr(err, func() error { return check(status(res) == 204, "status %d", status(res)) }))
	_, res, err = o.InputSetsApi.GetInputSet(octx, org, project, "tf_set", "tf_pipe", &oapi.InputSetsApiGetInputSetOpts{HarnessAccount: acct})
	report("v1 InputSetsApi.GetInputSet (gone: 404)", check(err != nil && status(res) == 404, "status %d", status(res)))
	res, err = o.PipelinesApi.DeletePipeline(octx, org, project, "tf_pipe", &oapi.PipelinesApiDeletePipelineOpts{HarnessAccount: acct})
	report("v1 PipelinesApi.DeletePipeline", firstErr(err, func() error { return check(status(res) == 204, "status %d", status(res)) }))
	_, res, err = o.PipelinesApi.GetPipeline(octx, org, project, "tf_pipe", &oapi.PipelinesApiGetPipelineOpts{HarnessAccount: acct})
	report("v1 PipelinesApi.GetPipeline (gone: 404)", check(err != nil && status(res) == 404, "status %d", status(res)))
}

func firstErr(err error, then func() error) error {
	if err != nil {
		return err
	}
	return then()
}
