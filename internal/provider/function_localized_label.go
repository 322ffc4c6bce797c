package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ function.Function = (*localizedLabelFunction)(nil)

// NewLocalizedLabelFunction returns the provider::mediaplatform::localized_label function.
func NewLocalizedLabelFunction() function.Function {
	return &localizedLabelFunction{}
}

// localizedLabelFunction picks a display label from a platform labels map (culture
// code to text) with the client fallback rule of the interface specification.
type localizedLabelFunction struct{}

func (f *localizedLabelFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "localized_label"
}

func (f *localizedLabelFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Picks the label for a culture from a map of localized labels, with the platform's fallback rule",
		MarkdownDescription: "Returns the label for `culture` from a map of localized labels, such as the `labels` or " +
			"`tooltips` of an attribute, layer, layout group or asset type in the `mediaplatform_system_model` and " +
			"`mediaplatform_asset_model` data sources. It follows the platform's client fallback rule:\n\n" +
			"1. the full culture code (`fr-CA`);\n" +
			"2. the culture code with its last subtag removed, one subtag at a time (`zh-Hant-TW`, then `zh-Hant`, " +
			"then `zh`), as in the BCP 47 lookup of RFC 4647, which also removes a single-letter subtag left at the " +
			"end, such as the `x` of a private-use part;\n" +
			"3. `en`;\n" +
			"4. `fallback`, typically the attribute id.\n\n" +
			"Culture codes are compared as BCP 47 prescribes, ignoring case, and `_` counts as `-`, so `fr-ca` and " +
			"`fr_CA` find a label stored under `fr-CA`; a key that matches exactly is preferred. A label that is the " +
			"empty string counts as present and is returned; a label whose value is `null` counts as missing.",
		Parameters: []function.Parameter{
			function.MapParameter{
				Name:           "labels",
				ElementType:    types.StringType,
				AllowNullValue: true,
				MarkdownDescription: "Map from culture code (BCP 47, such as `en`, `fr` or `fr-CA`) to label text. " +
					"`null` or an empty map means there are no labels, so the result is `fallback`.",
			},
			function.StringParameter{
				Name:           "culture",
				AllowNullValue: true,
				MarkdownDescription: "Culture code to find a label for, such as `fr-CA`. `null` or `\"\"` means no " +
					"preference: the `en` label, else `fallback`.",
			},
			function.StringParameter{
				Name: "fallback",
				MarkdownDescription: "Returned when no label matches, typically the attribute id. It must not be " +
					"`null`; pass `\"\"` for an empty result.",
			},
		},
		Return: function.StringReturn{},
	}
}

func (f *localizedLabelFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var (
		labels   types.Map
		culture  types.String
		fallback string
	)
	resp.Error = req.Arguments.Get(ctx, &labels, &culture, &fallback)
	if resp.Error != nil {
		return
	}

	known := make(map[string]string, len(labels.Elements()))
	for k, v := range labels.Elements() { // a null map has no elements
		if s, ok := v.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			known[k] = s.ValueString()
		}
	}

	label, ok := localizedLabel(known, culture.ValueString())
	if !ok {
		label = fallback
	}
	resp.Error = resp.Result.Set(ctx, label)
}

// localizedLabel returns the label for culture from labels by the platform's client
// fallback rule (the culture, its shorter forms, then en), and false when none of
// them has a label. The caller supplies the final fallback, typically the attribute
// id. Data sources in this package that resolve labels can call it too.
func localizedLabel(labels map[string]string, culture string) (string, bool) {
	if len(labels) == 0 {
		return "", false
	}
	// Keys by normalized form; where several keys normalize alike, the smallest
	// wins so the result never depends on map order.
	normalized := make(map[string]string, len(labels))
	for k := range labels {
		n := normalizeCulture(k)
		if prev, ok := normalized[n]; !ok || k < prev {
			normalized[n] = k
		}
	}
	for _, c := range cultureLookupChain(culture) {
		if v, ok := labels[c]; ok {
			return v, true
		}
		if k, ok := normalized[normalizeCulture(c)]; ok {
			return labels[k], true
		}
	}
	return "", false
}

// cultureLookupChain lists the culture codes to try for culture, most specific
// first: the code, then the code truncated one subtag at a time as RFC 4647 §3.4
// (Lookup) does, then en unless the chain already ends with it. An empty culture
// tries en only.
func cultureLookupChain(culture string) []string {
	c := strings.TrimSpace(culture)
	var chain []string
	for c != "" {
		chain = append(chain, c)
		i := strings.LastIndexAny(c, "-_")
		if i < 0 {
			break
		}
		c = c[:i]
		// A singleton (such as the "x" introducing private use) never stands alone.
		if j := strings.LastIndexAny(c, "-_"); j >= 0 && len(c)-j-1 == 1 {
			c = c[:j]
		}
	}
	if len(chain) > 0 && normalizeCulture(chain[len(chain)-1]) == "en" {
		return chain
	}
	return append(chain, "en")
}

// normalizeCulture makes culture codes comparable: BCP 47 tags ignore case, and
// some platforms write "fr_CA" for "fr-CA".
func normalizeCulture(c string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(c), "_", "-"))
}
