package httpapi

import (
	_ "embed"
	"net/http"
)

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI is the OpenAPI 3 description of the server's API.
func OpenAPI() []byte { return openAPIDoc }

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeBody(w, http.StatusOK, openAPIDoc)
	return nil
}
