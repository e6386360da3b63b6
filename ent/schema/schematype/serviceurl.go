package schematype

// ServiceURL is one URL of an external service or of its template.
type ServiceURL struct {
	ServiceURL string `json:"service_url"`
	Name       string `json:"name,omitempty"`
}
