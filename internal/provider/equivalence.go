package provider

// One equivalence per attribute, declared once. Every attribute a user writes and the
// platform stores is compared with what the platform gives back by the equivalence
// class of its value: the platform may store a host name in lower case, a domain
// name in upper case, an address in RFC 3986 normal form, and writing it so is no
// change. Each class is a custom string type with semantic equality (as the
// framework's jsontypes.Normalized), so the state keeps the user's spelling and only
// a difference of meaning is drift. A class that is exact says why, in
// exactAttributes. TestEveryWrittenAttributeHasAClass walks the provider's schemas
// and fails on a user-written string attribute with neither.

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// equivalenceClass is how two spellings of a value compare.
type equivalenceClass struct {
	// name names the class in the type's String and in the tests.
	name string
	// equal reports whether two spellings name the same value.
	equal func(a, b string) bool
	// why is the standard that makes the spellings one value.
	why string
}

// The classes of the attributes users write.
var (
	// hostClass: a server's host name or IP address (client.EquivalentHosts): DNS names
	// compare without case (RFC 4343), IP addresses by value (RFC 5952), an IPv6
	// address also in its URI brackets.
	hostClass = &equivalenceClass{name: "host", why: "RFC 4343, RFC 5952",
		equal: func(a, b string) bool { return client.EquivalentHosts(wireAddress(a), wireAddress(b)) }}
	// caseInsensitiveClass: a name the platform compares without case: a Windows
	// (NetBIOS or Active Directory) domain name.
	caseInsensitiveClass = &equivalenceClass{name: "case-insensitive", why: "NetBIOS and Active Directory names compare without case",
		equal: strings.EqualFold}
)

// exactAttributes are the user-written string attributes compared as written, each
// with the reason no looser class holds. Paths are "<type>.<attribute>[.<nested>]".
var exactAttributes = map[string]string{
	"mediaplatform_score.score_id": "the platform looks an alias up as written: contract §C allows any of " +
		"[A-Za-z0-9._-] and criteria match aliases by equality, so two spellings are two aliases",
	"mediaplatform_score_view.score": "a score's UUID or alias, sent as written and compared with the score's own " +
		"(an alias is case-sensitive, score_id)",
	"mediaplatform_score_view.pages":          "sent as written and never given back (views cannot be read back, contract §C)",
	"mediaplatform_score_view.license_string": "text printed on the view as written: every character counts",
	"mediaplatform_score_view.lang": "sent as written and never given back (views cannot be read back, contract §C): " +
		"only the configuration is compared, and another spelling of a tag replaces the view as another tag does",
	"mediaplatform_score_view.renew_before": "the provider's own setting, never sent to the platform; another spelling " +
		"of the same duration changes it in place and nothing else",
	"mediaplatform_external_authentication.deletion_policy": "one of the provider's own words, never sent to the " +
		"platform",
}

var (
	_ basetypes.StringTypable                    = equivalentStringType{}
	_ basetypes.StringValuableWithSemanticEquals = equivalentString{}
)

// equivalentStringType is the type of a string attribute of a class.
type equivalentStringType struct {
	basetypes.StringType
	class *equivalenceClass
}

// equivalentType is the custom type of an attribute of class c.
func equivalentType(c *equivalenceClass) equivalentStringType { return equivalentStringType{class: c} }

func (t equivalentStringType) String() string { return "equivalentStringType(" + t.class.name + ")" }

func (t equivalentStringType) Equal(o attr.Type) bool {
	other, ok := o.(equivalentStringType)
	return ok && other.class == t.class
}

func (t equivalentStringType) ValueType(context.Context) attr.Value {
	return equivalentString{class: t.class}
}

func (t equivalentStringType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return equivalentString{StringValue: in, class: t.class}, nil
}

func (t equivalentStringType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return equivalentString{StringValue: s, class: t.class}, nil
}

// equivalentString is a string compared by its class.
type equivalentString struct {
	basetypes.StringValue
	class *equivalenceClass
}

// equivalentOf is the known value s of class c.
func equivalentOf(c *equivalenceClass, s string) equivalentString {
	return equivalentString{StringValue: basetypes.NewStringValue(s), class: c}
}

func (v equivalentString) Type(context.Context) attr.Type {
	return equivalentStringType{class: v.class}
}

func (v equivalentString) Equal(o attr.Value) bool {
	other, ok := o.(equivalentString)
	return ok && other.class == v.class && v.StringValue.Equal(other.StringValue)
}

// StringSemanticEquals reports whether the new value is another spelling of the same
// value in the class: the framework then keeps the prior spelling in the state.
func (v equivalentString) StringSemanticEquals(_ context.Context, newValuable basetypes.StringValuable) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	other, ok := newValuable.(equivalentString)
	if !ok || v.class == nil || other.class != v.class {
		diags.AddError("Semantic equality check error",
			fmt.Sprintf("A value of class %v was compared with a value of type %T. This is a bug in the provider.", v.class, newValuable))
		return false, diags
	}
	return v.class.equal(v.ValueString(), other.ValueString()), diags
}
