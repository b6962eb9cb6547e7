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
	// It changes with the server's version only: five minutes spare a client reading it again.
	writeAnswer(w, http.StatusOK, "application/json", "public, max-age=300", openAPIDoc)
	return nil
}
