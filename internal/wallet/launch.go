package wallet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Launch is the operator's side of the launch call (WALLET.md): POST {base}/api/v1/launch,
// signed, opens the game for one of its players; it returns the link to open in the player's
// browser (good once, for a minute). The answer's signature is checked, as the operator would.
// The load test and the tests launch their players with it.
func Launch(ctx context.Context, hc *http.Client, base string, secret []byte, player, operatorSession string) (string, error) {
	body, err := json.Marshal(map[string]string{"player": player, "operator_session": operatorSession, "currency": Currency})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+"/api/v1/launch", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SignatureHeader, Sign(secret, body))
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return "", err
	}
	if !Verify(secret, answer, resp.Header.Get(SignatureHeader)) {
		return "", fmt.Errorf("launch of %s: an answer %d without a valid signature: %.200s", player, resp.StatusCode, answer)
	}
	var link struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(answer, &link); resp.StatusCode != http.StatusCreated || err != nil || link.URL == "" {
		return "", fmt.Errorf("launch of %s: %d %.200s", player, resp.StatusCode, answer)
	}
	return link.URL, nil
}
