package emulator

// The default accounts of the contract's section G, written once: the emulator
// starts with them, and every package's tests name them through these constants
// (internal/emulatortest re-exports them beside the harness).

// The default accounts' names and passwords.
const (
	// DefaultAdminName is the administrator of the admin API.
	DefaultAdminName     = "admin"
	DefaultAdminPassword = "admin-secret"
	// DefaultUserName is the platform user, with the platform's administrator role.
	DefaultUserName     = "alice"
	DefaultUserPassword = "alice-secret"
	// DefaultViewerName may log in to both, without administrator rights in either.
	DefaultViewerName     = "viewer"
	DefaultViewerPassword = "viewer-secret"
	// DefaultClientID is the OAuth client accepted by the password grant.
	DefaultClientID     = "terraform"
	DefaultClientSecret = "terraform-secret"
)

// DefaultUsers are the accounts of the contract's section G.
func DefaultUsers() []User {
	return []User{
		{Name: DefaultAdminName, Password: DefaultAdminPassword, AdminLogin: true, Administrator: true},
		{Name: DefaultUserName, Password: DefaultUserPassword, Platform: true, PlatformAdmin: true},
		{Name: DefaultViewerName, Password: DefaultViewerPassword, AdminLogin: true, Platform: true},
	}
}

// DefaultClients is the OAuth client of the contract's section G.
func DefaultClients() []OAuthClient {
	return []OAuthClient{{ID: DefaultClientID, Secret: DefaultClientSecret}}
}
