package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestNullArguments sends function calls as OpenTofu does, a null argument left out
// (nil), as an empty value (neither MessagePack nor JSON), and as Terraform does, an
// encoded null: each gives the function's answer for null, with no error.
func TestNullArguments(t *testing.T) {
	t.Parallel()
	server, err := wrapServer(providerserver.NewProtocol6(New("test")())())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := server.(tfprotov6.ActionServer); !ok {
		t.Error("the wrapped protocol server hides the actions")
	}
	if _, ok := server.(tfprotov6.ListResourceServer); !ok {
		t.Error("the wrapped protocol server hides the list resources")
	}
	str := func(s string) *tfprotov6.DynamicValue {
		v, err := tfprotov6.NewDynamicValue(tftypes.String, tftypes.NewValue(tftypes.String, s))
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	encodedNull, err := tfprotov6.NewDynamicValue(tftypes.String, tftypes.NewValue(tftypes.String, nil))
	if err != nil {
		t.Fatal(err)
	}
	for name, null := range map[string]*tfprotov6.DynamicValue{
		"nil (OpenTofu)":           nil,
		"empty (OpenTofu)":         {},
		"encoded null (Terraform)": &encodedNull,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			resp, err := server.CallFunction(context.Background(), &tfprotov6.CallFunctionRequest{
				Name:      "localized_label",
				Arguments: []*tfprotov6.DynamicValue{null, str("en"), str("fallback")},
			})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Error != nil {
				t.Fatalf("localized_label(null, \"en\", \"fallback\") failed: %s", resp.Error.Text)
			}
			got, err := resp.Result.Unmarshal(tftypes.String)
			if err != nil {
				t.Fatal(err)
			}
			var s string
			if err := got.As(&s); err != nil || s != "fallback" {
				t.Errorf("localized_label(null, \"en\", \"fallback\") = %v, want \"fallback\"", got)
			}
		})
	}
}
