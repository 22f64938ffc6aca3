package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// docsFlow opens the API documentation: Swagger UI, served from the
// binary, runs under the page's policy and lists the server's operations
// from its OpenAPI document.
func docsFlow(t *testing.T, s *uiSuite) {
	f := s.newFlow(t)
	f.run("the API documentation",
		chromedp.Navigate(s.url+"/docs/openapi"),
		waitJS(`(document.querySelector('.swagger-ui .info .title') || {}).textContent?.includes('Signalbox API')`, "the document's title"),
		waitJS(`document.querySelectorAll('.opblock').length > 100`, "the operations listed"),
		waitJS(`[...document.querySelectorAll('.opblock-summary-path')].some(e => e.textContent.includes('/api/client/features'))`, "the client API"))
	// No screenshot: the page's controls are Swagger UI's own, which name
	// some buttons by title only, and the screenshot helper checks ours.
}
