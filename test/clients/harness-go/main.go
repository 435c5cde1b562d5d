// Drives the emulator with two public Harness Go clients, unchanged: harness-go-sdk v0.8.24
// (package nextgen, the version the Harness Terraform provider pins; its pipeline list and the
// earlier raw-YAML create, next to the v2 create, read, update and delete) and
// harness-openapi-go-client (the v1 API that the provider's pipeline and input set resources call,
// with the requests the provider sends: terraform-provider-harness
// internal/service/pipeline/pipeline/resource_pipeline.go, input_set/input_set_resource.go), and the
// SDK's access-control calls the provider's platform resources make (issue 27).
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

	accessControl(sctx, s, account, org)
}

// accessControl drives the access-control calls of the Terraform provider's
// harness_platform_service_account, _apikey, _token, _usergroup, _roles, _resource_group and
// _role_assignments resources (internal/service/platform/*), each as the provider sends it.
func accessControl(ctx context.Context, s *sdk.APIClient, account, org string) {
	inOrg := optional.NewString(org)
	acct := optional.NewString(account)

	sa := sdk.ServiceAccount{Identifier: "go_sa", Name: "go_sa", Email: "go_sa@service.harness.io", AccountIdentifier: account, OrgIdentifier: org}
	r1, _, err := s.ServiceAccountApi.CreateServiceAccount(ctx, sa, account, &sdk.ServiceAccountApiCreateServiceAccountOpts{OrgIdentifier: inOrg})
	report("ServiceAccountApi.CreateServiceAccount", firstErr(err, func() error { return check(r1.Data != nil && r1.Data.Email == sa.Email, "data %+v", r1.Data) }))
	r2, _, err := s.ServiceAccountApi.GetAggregatedServiceAccount(ctx, account, "go_sa", &sdk.ServiceAccountApiGetAggregatedServiceAccountOpts{OrgIdentifier: inOrg})
	report("ServiceAccountApi.GetAggregatedServiceAccount", firstErr(err, func() error {
		return check(r2.Data != nil && r2.Data.ServiceAccount != nil && r2.Data.ServiceAccount.OrgIdentifier == org, "data %+v", r2.Data)
	}))
	sa.Description = "from go"
	r3, _, err := s.ServiceAccountApi.UpdateServiceAccount(ctx, sa, account, "go_sa", &sdk.ServiceAccountApiUpdateServiceAccountOpts{OrgIdentifier: inOrg})
	report("ServiceAccountApi.UpdateServiceAccount", firstErr(err, func() error { return check(r3.Data != nil && r3.Data.Description == "from go", "data %+v", r3.Data) }))

	key := sdk.ApiKey{Identifier: "go_key", Name: "go_key", ApiKeyType: "SERVICE_ACCOUNT", ParentIdentifier: "go_sa", AccountIdentifier: account, OrgIdentifier: org}
	r4, _, err := s.ApiKeyApi.CreateApiKey(ctx, account, &sdk.ApiKeyApiCreateApiKeyOpts{Body: optional.NewInterface(key)})
	report("ApiKeyApi.CreateApiKey", firstErr(err, func() error { return check(r4.Data != nil && r4.Data.ParentIdentifier == "go_sa", "data %+v", r4.Data) }))
	r5, _, err := s.ApiKeyApi.GetAggregatedApiKey(ctx, account, "SERVICE_ACCOUNT", "go_sa", "go_key", &sdk.ApiKeyApiGetAggregatedApiKeyOpts{OrgIdentifier: inOrg})
	report("ApiKeyApi.GetAggregatedApiKey", firstErr(err, func() error { return check(r5.Data != nil && r5.Data.ApiKey != nil && r5.Data.TokensCount == 0, "data %+v", r5.Data) }))
	// The provider passes the account id as the path identifier (api_key/apiKey.go); the body names the key.
	key.Description = "from go"
	r6, _, err := s.ApiKeyApi.UpdateApiKey(ctx, account, &sdk.ApiKeyApiUpdateApiKeyOpts{Body: optional.NewInterface(key)})
	report("ApiKeyApi.UpdateApiKey", firstErr(err, func() error { return check(r6.Data != nil && r6.Data.Description == "from go", "data %+v", r6.Data) }))

	tok := sdk.Token{Identifier: "go_tok", Name: "go_tok", ApiKeyIdentifier: "go_key", ParentIdentifier: "go_sa", ApiKeyType: "SERVICE_ACCOUNT", AccountIdentifier: account, OrgIdentifier: org}
	r7, _, err := s.TokenApi.CreateToken(ctx, account, &sdk.TokenApiCreateTokenOpts{Body: optional.NewInterface(tok)})
	report("TokenApi.CreateToken", firstErr(err, func() error { return check(len(r7.Data) > 4 && r7.Data[:4] == "sat.", "data %q", r7.Data) }))
	r8, _, err := s.TokenApi.ListAggregatedTokens(ctx, account, "SERVICE_ACCOUNT", "go_sa", "go_key", &sdk.TokenApiListAggregatedTokensOpts{
		OrgIdentifier: inOrg, Identifiers: optional.NewInterface("go_tok"),
	})
	report("TokenApi.ListAggregatedTokens", firstErr(err, func() error {
		return check(r8.Data != nil && len(r8.Data.Content) == 1 && r8.Data.Content[0].Token.Identifier == "go_tok", "data %+v", r8.Data)
	}))
	tok.Description = "from go"
	r9, _, err := s.TokenApi.UpdateToken(ctx, account, "go_tok", &sdk.TokenApiUpdateTokenOpts{Body: optional.NewInterface(tok)})
	report("TokenApi.UpdateToken", firstErr(err, func() error { return check(r9.Data != nil && r9.Data.Description == "from go", "data %+v", r9.Data) }))

	ug := sdk.UserGroup{Identifier: "go_group", Name: "go_group", AccountIdentifier: account, OrgIdentifier: org}
	r10, _, err := s.UserGroupApi.PostUserGroup(ctx, ug, account, &sdk.UserGroupApiPostUserGroupOpts{OrgIdentifier: inOrg})
	report("UserGroupApi.PostUserGroup", firstErr(err, func() error { return check(r10.Data != nil && r10.Data.Identifier == "go_group", "data %+v", r10.Data) }))
	r11, _, err := s.UserGroupApi.GetUserGroup(ctx, account, "go_group", &sdk.UserGroupApiGetUserGroupOpts{OrgIdentifier: inOrg})
	report("UserGroupApi.GetUserGroup", firstErr(err, func() error { return check(r11.Data != nil && r11.Data.Name == "go_group", "data %+v", r11.Data) }))
	ug.Name = "go group"
	r12, _, err := s.UserGroupApi.PutUserGroup(ctx, ug, account, &sdk.UserGroupApiPutUserGroupOpts{OrgIdentifier: inOrg})
	report("UserGroupApi.PutUserGroup", firstErr(err, func() error { return check(r12.Data != nil && r12.Data.Name == "go group", "data %+v", r12.Data) }))

	role := sdk.Role{Identifier: "go_role", Name: "go_role", Permissions: []string{"core_project_view"}}
	r13, _, err := s.RolesApi.PostRole(ctx, role, &sdk.RolesApiPostRoleOpts{AccountIdentifier: acct, OrgIdentifier: inOrg})
	report("RolesApi.PostRole", firstErr(err, func() error { return check(r13.Data != nil && r13.Data.Role != nil && r13.Data.Scope.OrgIdentifier == org, "data %+v", r13.Data) }))
	r14, _, err := s.RolesApi.GetRole(ctx, "go_role", &sdk.RolesApiGetRoleOpts{AccountIdentifier: acct, OrgIdentifier: inOrg})
	report("RolesApi.GetRole", firstErr(err, func() error { return check(r14.Data != nil && r14.Data.Role.Permissions[0] == "core_project_view", "data %+v", r14.Data) }))
	role.Name = "go role"
	r15, _, err := s.RolesApi.PutRole(ctx, role, "go_role", &sdk.RolesApiPutRoleOpts{AccountIdentifier: acct, OrgIdentifier: inOrg})
	report("RolesApi.PutRole", firstErr(err, func() error { return check(r15.Data != nil && r15.Data.Role.Name == "go role", "data %+v", r15.Data) }))

	rg := sdk.ResourceGroupV2{Identifier: "go_rg", Name: "go_rg", AccountIdentifier: account, OrgIdentifier: org,
		AllowedScopeLevels: []string{"organization"},
		IncludedScopes:     []sdk.ScopeSelector{{Filter: "EXCLUDING_CHILD_SCOPES", AccountIdentifier: account, OrgIdentifier: org}},
		ResourceFilter:     &sdk.ResourceFilter{IncludeAllResources: true}}
	r16, _, err := s.HarnessResourceGroupApi.CreateResourceGroupV2(ctx, sdk.ResourceGroupV2Request{ResourceGroup: &rg}, account,
		&sdk.HarnessResourceGroupApiCreateResourceGroupV2Opts{OrgIdentifier: inOrg})
	report("HarnessResourceGroupApi.CreateResourceGroupV2", firstErr(err, func() error {
		return check(r16.Data != nil && r16.Data.ResourceGroup != nil && r16.Data.ResourceGroup.ResourceFilter.IncludeAllResources, "data %+v", r16.Data)
	}))
	r17, _, err := s.HarnessResourceGroupApi.GetResourceGroupV2(ctx, "go_rg", account, &sdk.HarnessResourceGroupApiGetResourceGroupV2Opts{OrgIdentifier: inOrg})
	report("HarnessResourceGroupApi.GetResourceGroupV2", firstErr(err, func() error {
		return check(r17.Data != nil && len(r17.Data.ResourceGroup.IncludedScopes) == 1, "data %+v", r17.Data)
	}))
	rg.Description = "from go"
	r18, _, err := s.HarnessResourceGroupApi.UpdateResourceGroup1(ctx, sdk.ResourceGroupV2Request{ResourceGroup: &rg}, account, "go_rg",
		&sdk.HarnessResourceGroupApiUpdateResourceGroup1Opts{OrgIdentifier: inOrg})
	report("HarnessResourceGroupApi.UpdateResourceGroup1", firstErr(err, func() error {
		return check(r18.Data != nil && r18.Data.ResourceGroup.Description == "from go", "data %+v", r18.Data)
	}))

	ra := sdk.RoleAssignment{ResourceGroupIdentifier: "go_rg", RoleIdentifier: "go_role", Principal: &sdk.AuthzPrincipal{Identifier: "go_sa", Type_: "SERVICE_ACCOUNT"}}
	r19, _, err := s.RoleAssignmentsApi.PostRoleAssignment(ctx, ra, account, &sdk.RoleAssignmentsApiPostRoleAssignmentOpts{OrgIdentifier: inOrg})
	raID := ""
	if r19.Data != nil && r19.Data.RoleAssignment != nil {
		raID = r19.Data.RoleAssignment.Identifier
	}
	report("RoleAssignmentsApi.PostRoleAssignment", firstErr(err, func() error { return check(raID != "", "data %+v", r19.Data) }))
	r20, _, err := s.RoleAssignmentsApi.GetRoleAssignment(ctx, account, raID, &sdk.RoleAssignmentsApiGetRoleAssignmentOpts{OrgIdentifier: inOrg})
	report("RoleAssignmentsApi.GetRoleAssignment", firstErr(err, func() error {
		return check(r20.Data != nil && r20.Data.RoleAssignment.Principal.Type_ == "SERVICE_ACCOUNT", "data %+v", r20.Data)
	}))
	_, _, err = s.RoleAssignmentsApi.DeleteRoleAssignment(ctx, account, raID, &sdk.RoleAssignmentsApiDeleteRoleAssignmentOpts{OrgIdentifier: inOrg})
	report("RoleAssignmentsApi.DeleteRoleAssignment", err)
	_, res, err := s.RoleAssignmentsApi.GetRoleAssignment(ctx, account, raID, &sdk.RoleAssignmentsApiGetRoleAssignmentOpts{OrgIdentifier: inOrg})
	report("RoleAssignmentsApi.GetRoleAssignment (gone: 404)", check(err != nil && status(res) == 404, "status %d", status(res)))

	_, _, err = s.HarnessResourceGroupApi.DeleteResourceGroupV2(ctx, "go_rg", account, &sdk.HarnessResourceGroupApiDeleteResourceGroupV2Opts{OrgIdentifier: inOrg})
	report("HarnessResourceGroupApi.DeleteResourceGroupV2", err)
	_, _, err = s.RolesApi.DeleteRole(ctx, "go_role", &sdk.RolesApiDeleteRoleOpts{AccountIdentifier: acct, OrgIdentifier: inOrg})
	report("RolesApi.DeleteRole", err)
	_, _, err = s.UserGroupApi.DeleteUserGroup(ctx, account, "go_group", &sdk.UserGroupApiDeleteUserGroupOpts{OrgIdentifier: inOrg})
	report("UserGroupApi.DeleteUserGroup", err)
	_, _, err = s.TokenApi.DeleteToken(ctx, "go_tok", account, "SERVICE_ACCOUNT", "go_sa", "go_key", &sdk.TokenApiDeleteTokenOpts{OrgIdentifier: inOrg})
	report("TokenApi.DeleteToken", err)
	_, _, err = s.ApiKeyApi.DeleteApiKey(ctx, account, "SERVICE_ACCOUNT", "go_sa", "go_key", &sdk.ApiKeyApiDeleteApiKeyOpts{OrgIdentifier: inOrg})
	report("ApiKeyApi.DeleteApiKey", err)
	_, _, err = s.ServiceAccountApi.DeleteServiceAccount(ctx, account, "go_sa", &sdk.ServiceAccountApiDeleteServiceAccountOpts{OrgIdentifier: inOrg})
	report("ServiceAccountApi.DeleteServiceAccount", err)
}

func firstErr(err error, then func() error) error {
	if err != nil {
		return err
	}
	return then()
}
