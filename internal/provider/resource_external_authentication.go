package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ resource.Resource                = (*externalAuthenticationResource)(nil)
	_ resource.ResourceWithConfigure   = (*externalAuthenticationResource)(nil)
	_ resource.ResourceWithImportState = (*externalAuthenticationResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*externalAuthenticationResource)(nil)
)

// NewExternalAuthenticationResource returns the mediaplatform_external_authentication resource.
func NewExternalAuthenticationResource() resource.Resource {
	return &externalAuthenticationResource{}
}

type externalAuthenticationResource struct {
	client *client.Client
}

// externalAuthenticationID is the id of the singleton settings.
const externalAuthenticationID = "external-authentication"

// Deletion policies of mediaplatform_external_authentication.
const (
	deletionPolicyDisable = "disable"
	deletionPolicyRetain  = "retain"
)

// maxAuthServers is the number of numbered server sets the admin API accepts.
const maxAuthServers = 8

type externalAuthenticationModel struct {
	ID             types.String      `tfsdk:"id"`
	DomainName     equivalentString  `tfsdk:"domain_name"`
	Enabled        types.Bool        `tfsdk:"enabled"`
	Servers        []authServerModel `tfsdk:"servers"`
	DeletionPolicy types.String      `tfsdk:"deletion_policy"`
}

type authServerModel struct {
	Address equivalentString `tfsdk:"address"`
	Port    types.Int64      `tfsdk:"port"`
	Enabled types.Bool       `tfsdk:"enabled"`
}

func (r *externalAuthenticationResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_external_authentication"
}

func (r *externalAuthenticationResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The administrator API's external authentication settings (a singleton). Creating the resource adopts " +
			"the settings the platform has and replaces them with the configured ones; every refresh reads them back, so " +
			"changes made outside Terraform show as drift. A write replaces the whole document, so the resource reads the " +
			"settings again before each one: members of the settings this provider does not model are written back as " +
			"they are, and an update stops with an error, writing nothing, when the settings changed on the platform since " +
			"the plan was made. Needs `admin_url`, `admin_username` and `admin_password`, and " +
			"an administrator account.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Always `" + externalAuthenticationID + "`: the platform has exactly one set of these settings.",
				Computed:            true,
				Default:             stringdefault.StaticString(externalAuthenticationID),
			},
			"domain_name": schema.StringAttribute{
				MarkdownDescription: "Domain of external authentication (`domainName`), e.g. `CORP`. Compared without " +
					"case, as Windows compares domain names: a platform that gives it back as `corp` shows no change, " +
					"and the state keeps the configured spelling.",
				CustomType: equivalentType(caseInsensitiveClass),
				Required:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "Whether external authentication is switched on (`externalAuthenticationEnabled`).",
				Required:            true,
			},
			"servers": schema.ListNestedAttribute{
				MarkdownDescription: fmt.Sprintf("Authentication servers, in order (the API's numbered sets `serverN`, `portN`, "+
					"`enabledN`); at most %d. Servers not listed are removed from the platform.", maxAuthServers),
				Optional:   true,
				Validators: []validator.List{listvalidator.SizeAtMost(maxAuthServers)},
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"address": schema.StringAttribute{
							MarkdownDescription: "Host name or IP address of the server, e.g. `dc1.corp.example`, `10.0.0.9` or " +
								"`fd00::10` (an IPv6 address may also be written in brackets, `[fd00::10]`: the brackets are " +
								"left out of what is sent to the platform, and the state keeps the address as written): no " +
								"scheme, port (set `port`), path or spaces. Compared as the same server in every spelling: a " +
								"host name without case (RFC 4343: `DC1.Corp.Example` is `dc1.corp.example`), an IP address by " +
								"value; the state keeps the configured spelling, and only another server is drift.",
							CustomType: equivalentType(hostClass),
							Required:   true,
							Validators: []validator.String{serverAddress()},
						},
						"port": schema.Int64Attribute{
							MarkdownDescription: "TCP port of the server, 1 to 65535 (e.g. 389 for LDAP, 636 for LDAPS).",
							Required:            true,
							Validators:          []validator.Int64{int64validator.Between(1, 65535)},
						},
						"enabled": schema.BoolAttribute{
							MarkdownDescription: "Whether the server is used. Default `true`.",
							Optional:            true,
							Computed:            true,
							Default:             booldefault.StaticBool(true),
						},
					},
				},
			},
			"deletion_policy": schema.StringAttribute{
				MarkdownDescription: "What destroying the resource does: `" + deletionPolicyDisable + "` (default) switches external " +
					"authentication off in the settings as the platform holds them then, keeping everything else; `" + deletionPolicyRetain + "` leaves the platform " +
					"untouched and only removes the resource from the state.",
				Optional:   true,
				Computed:   true,
				Default:    stringdefault.StaticString(deletionPolicyDisable),
				Validators: []validator.String{stringvalidator.OneOf(deletionPolicyDisable, deletionPolicyRetain)},
			},
		},
	}
}

func (r *externalAuthenticationResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan reports at plan time an administrator setting that storing the
// settings will need.
func (r *externalAuthenticationResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	checkSettingsAtPlan(r.client, client.AreaAdmin, req, resp, true, "Storing the external authentication settings needs it.")
}

func (r *externalAuthenticationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.store(ctx, req.Plan, nil, &resp.State, resp.Private, &resp.Diagnostics, "Unable to store external authentication settings")
}

// settingsPresenceKey names, in the resource's private state, what the platform has
// shown of the members it leaves out of its answers: {"switchUnreported": true} once
// an answer left out externalAuthenticationEnabled that was stored true, so that a
// later run, whose client has not seen that yet, reads its absence as unknown (the
// state's value kept), not as false.
const settingsPresenceKey = "settings_presence"

// switchUnreported reports whether the platform leaves externalAuthenticationEnabled
// out of its answers even when it is true: learned by this run's client, or by an
// earlier run, in private.
func (r *externalAuthenticationResource) switchUnreported(ctx context.Context, private privateData) bool {
	if r.client.SettingsSwitchUnreported() {
		return true
	}
	if private == nil {
		return false
	}
	b, _ := private.GetKey(ctx, settingsPresenceKey)
	return strings.Contains(string(b), `"switchUnreported":true`)
}

// rememberPresence writes what this run's client learned into private.
func (r *externalAuthenticationResource) rememberPresence(ctx context.Context, private privateWriter, diags *diag.Diagnostics) {
	if private != nil && r.client.SettingsSwitchUnreported() {
		diags.Append(private.SetKey(ctx, settingsPresenceKey, []byte(`{"switchUnreported":true}`))...)
	}
}

func (r *externalAuthenticationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx = logResource(ctx, externalAuthenticationID)
	var state externalAuthenticationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The settings are a singleton that always exists: no answer removes it from
	// the state (a 404 comes back as an address error).
	current, err := r.client.GetExternalAuthentication(ctx)
	if err != nil {
		addReadError(ctx, r.client, &resp.Diagnostics, "Unable to read external authentication settings",
			externalAuthDetail("The external authentication settings could not be read."), err)
		return
	}
	fillUnshown(current, state.settings(), r.switchUnreported(ctx, req.Private))
	state.refresh(current)
	r.rememberPresence(ctx, resp.Private, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *externalAuthenticationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.store(ctx, req.Plan, &req.State, &resp.State, resp.Private, &resp.Diagnostics, "Unable to update external authentication settings")
}

// store puts the planned settings, for Create and Update, and sets the state to
// what the platform stored. A PUT replaces the whole document, so it first reads the
// settings again: the members this provider does not model go back as read, and on
// an update (prior is the state the plan was made from) a change made on the
// platform since the plan stops it before it writes anything, since the plan did not
// show what the write would undo.
func (r *externalAuthenticationResource) store(ctx context.Context, plan tfsdk.Plan, prior *tfsdk.State, state *tfsdk.State,
	private privateWriter, diags *diag.Diagnostics, summary string) {
	ctx = logResource(ctx, externalAuthenticationID)
	var data externalAuthenticationModel
	diags.Append(plan.Get(ctx, &data)...)
	if diags.HasError() {
		return
	}
	current, err := r.client.GetExternalAuthentication(ctx)
	if err != nil {
		addClientError(diags, summary, externalAuthDetail("The settings could not be read before being written (a write replaces "+
			"all of them, so the provider reads them first, to keep what it does not manage). Nothing was written."), err)
		return
	}
	settings := data.settings()
	if prior != nil {
		var was externalAuthenticationModel
		diags.Append(prior.Get(ctx, &was)...)
		if diags.HasError() {
			return
		}
		fillUnshown(current, was.settings(), r.switchUnreported(ctx, nil))
		if changed := settingsChangedSincePlan(was.settings(), settings, *current); len(changed) > 0 {
			diags.AddError(summary, externalAuthDetail("The settings changed on the platform since the plan was made, "+
				"outside this Terraform run:\n\n  - "+strings.Join(changed, "\n  - ")+"\n\nNothing was written, so that these "+
				"changes are not undone unseen. Run terraform plan again to see them, and add to the configuration what "+
				"should stay."))
			return
		}
	}
	settings.Extra = current.Extra
	stored, err := r.client.PutExternalAuthentication(ctx, settings)
	if err != nil {
		what := "The external authentication settings could not be stored."
		if causeLead(err) == "" {
			// No cause found in the client: the platform refused the values themselves.
			what += " Check the configured values."
		}
		addClientError(diags, summary, externalAuthDetail(what), err)
		return
	}
	data.refresh(stored)
	r.rememberPresence(ctx, private, diags)
	diags.Append(state.Set(ctx, &data)...)
}

func (r *externalAuthenticationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx = logResource(ctx, externalAuthenticationID)
	var state externalAuthenticationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.DeletionPolicy.ValueString() == deletionPolicyRetain {
		resp.Diagnostics.AddWarning("External authentication settings retained",
			"deletion_policy is \"retain\": the external authentication settings were removed from the Terraform state only "+
				"and are left unchanged on the platform (external authentication stays as it was).")
		return
	}
	// Destroying only switches external authentication off: the settings are read
	// again and written back as they are now, so that nothing another administrator
	// changed since the plan is undone.
	current, err := r.client.GetExternalAuthentication(ctx)
	if err == nil && !current.Enabled && current.Shown("externalAuthenticationEnabled") {
		return // already off, as the platform said: nothing to write
	}
	if err == nil {
		// What the answer did not show is written as this configuration last stored it,
		// never as a zero the platform did not give.
		fillUnshown(current, state.settings(), false)
		current.Enabled = false
		_, err = r.client.PutExternalAuthentication(ctx, *current)
	}
	if err != nil {
		addClientError(&resp.Diagnostics, "Unable to disable external authentication",
			externalAuthDetail("deletion_policy is \"disable\", and switching external authentication off failed. Fix the cause and destroy again, "+
				"or set deletion_policy = \"retain\" to only remove the resource from the state."), err)
	}
}

func (r *externalAuthenticationResource) ImportState(ctx context.Context, _ resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	// Any import id addresses the singleton; Read fills in the settings.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), externalAuthenticationID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("deletion_policy"), deletionPolicyDisable)...)
}

// externalAuthDetail names the object in a diagnostic detail.
func externalAuthDetail(what string) string {
	return "Resource mediaplatform_external_authentication (" + externalAuthenticationID + "): " + what
}

// settingsChangedSincePlan describes each setting that the platform holds now
// (current) differently from the state the plan was made from (prior), unless it
// already holds the planned value: what a write of the plan would undo unseen.
func settingsChangedSincePlan(prior, planned, current client.ExternalAuthentication) []string {
	var changed []string
	sameDomain := caseInsensitiveClass.equal
	if !sameDomain(current.DomainName, prior.DomainName) && !sameDomain(current.DomainName, planned.DomainName) {
		changed = append(changed, fmt.Sprintf("domain_name: %q when planned, now %q", prior.DomainName, current.DomainName))
	}
	if current.Enabled != prior.Enabled && current.Enabled != planned.Enabled {
		changed = append(changed, fmt.Sprintf("enabled: %t when planned, now %t", prior.Enabled, current.Enabled))
	}
	slot := func(servers []client.AuthServer, i int) *client.AuthServer {
		if i < len(servers) {
			return &servers[i]
		}
		return nil
	}
	same := func(a, b *client.AuthServer) bool {
		return a == nil && b == nil || a != nil && b != nil && sameAddress(a.Address, b.Address) && a.Port == b.Port && a.Enabled == b.Enabled
	}
	for i := range max(len(prior.Servers), len(current.Servers)) {
		was, now, want := slot(prior.Servers, i), slot(current.Servers, i), slot(planned.Servers, i)
		if same(was, now) || same(now, want) {
			continue
		}
		switch {
		case was == nil:
			changed = append(changed, fmt.Sprintf("servers[%d]: %s added", i, describeServer(*now)))
		case now == nil:
			changed = append(changed, fmt.Sprintf("servers[%d]: %s removed", i, describeServer(*was)))
		default:
			changed = append(changed, fmt.Sprintf("servers[%d]: %s when planned, now %s", i, describeServer(*was), describeServer(*now)))
		}
	}
	return changed
}

// describeServer names a server in a diagnostic: address:port, and whether it is used.
func describeServer(s client.AuthServer) string {
	state := "enabled"
	if !s.Enabled {
		state = "disabled"
	}
	return fmt.Sprintf("%s port %d (%s)", s.Address, s.Port, state)
}

// settings converts the model to the client's settings document.
func (m externalAuthenticationModel) settings() client.ExternalAuthentication {
	s := client.ExternalAuthentication{
		DomainName: m.DomainName.ValueString(),
		Enabled:    m.Enabled.ValueBool(),
	}
	for _, srv := range m.Servers {
		s.Servers = append(s.Servers, client.AuthServer{
			Address: wireAddress(srv.Address.ValueString()),
			Port:    int(srv.Port.ValueInt64()),
			Enabled: srv.Enabled.ValueBool(),
		})
	}
	return s
}

// refresh copies the platform's settings into the model (what they did not show
// filled in first, fillUnshown). An empty server list stays
// as the configuration wrote it (null when omitted, [] when written as empty), so
// neither form shows a spurious difference, and so does a server's address that the
// platform spells otherwise ("fd00::10" for the configured "[fd00::10]", which is sent
// without its brackets): the model's spelling is kept where it names the same
// address in the same slot. Another address is drift, and is taken as the platform
// writes it, as is every address on import (no spelling to keep).
func (m *externalAuthenticationModel) refresh(s *client.ExternalAuthentication) {
	m.ID = types.StringValue(externalAuthenticationID)
	if m.DomainName.IsNull() || m.DomainName.IsUnknown() || !caseInsensitiveClass.equal(m.DomainName.ValueString(), s.DomainName) {
		m.DomainName = equivalentOf(caseInsensitiveClass, s.DomainName)
	}
	m.Enabled = types.BoolValue(s.Enabled)
	if m.DeletionPolicy.IsNull() || m.DeletionPolicy.IsUnknown() {
		m.DeletionPolicy = types.StringValue(deletionPolicyDisable)
	}
	if len(s.Servers) == 0 {
		if m.Servers != nil {
			m.Servers = []authServerModel{}
		}
		return
	}
	servers := authServers(s.Servers)
	for i := range min(len(servers), len(m.Servers)) {
		if was := m.Servers[i].Address; !was.IsNull() && !was.IsUnknown() && sameAddress(was.ValueString(), servers[i].Address.ValueString()) {
			servers[i].Address = was
		}
	}
	m.Servers = servers
}

// fillUnshown gives each member the platform's answer did not show (s.Unshown) the
// value known had for it: the domain, a server's port and enabledN in the same slot
// with the same address, and the switch when switchToo (a platform known to leave it
// out even when true; elsewhere its absence is false, rule 1). known is what this
// configuration last stored (the state) or planned: absent is unknown, and the state's
// value is the best knowledge of it, never a zero the platform did not give.
func fillUnshown(s *client.ExternalAuthentication, known client.ExternalAuthentication, switchToo bool) {
	if !s.Shown("domainName") && known.DomainName != "" {
		s.DomainName = known.DomainName
	}
	if !s.Shown("externalAuthenticationEnabled") && switchToo {
		s.Enabled = known.Enabled
	}
	for i := range min(len(s.Servers), len(known.Servers)) {
		if !s.Shown("server" + strconv.Itoa(i)) {
			s.Servers[i].Address = known.Servers[i].Address
		}
		if !sameAddress(s.Servers[i].Address, known.Servers[i].Address) {
			continue
		}
		if !s.Shown("port"+strconv.Itoa(i)) && known.Servers[i].Port != 0 {
			s.Servers[i].Port = known.Servers[i].Port
		}
		if !s.Shown("enabled" + strconv.Itoa(i)) {
			s.Servers[i].Enabled = known.Servers[i].Enabled
		}
	}
}

// authServers copies the platform's servers, in its order, into the model of the
// resource and of the data source.
func authServers(servers []client.AuthServer) []authServerModel {
	m := make([]authServerModel, 0, len(servers))
	for _, srv := range servers {
		m = append(m, authServerModel{
			Address: equivalentOf(hostClass, srv.Address),
			Port:    types.Int64Value(int64(srv.Port)),
			Enabled: types.BoolValue(srv.Enabled),
		})
	}
	return m
}
