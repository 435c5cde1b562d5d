module flagstack.test/pulumi-language-go

go 1.25

require (
	github.com/pulumi/pulumi/pkg/v3 v3.259.0
	github.com/pulumi/pulumi/sdk/v3 v3.259.0
	google.golang.org/grpc v1.83.1
)
