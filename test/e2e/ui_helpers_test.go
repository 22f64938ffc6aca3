package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The browser tests drive a real headless Chromium (Debian's chromium)
// through the DevTools protocol, against one "signalbox server" process per
// suite. Every flow has its own browser context, so its own cookies, and
// runs in parallel with the others in one shared browser.

// uiSuite is the server and browser the flows share.
type uiSuite struct {
	url      string
	password string          // the admin password the server printed
	browser  context.Context // the shared browser
}

// findBrowser returns the path of a Chromium-like browser; without one the
// test is skipped, except under CI where that is a failure.
func findBrowser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium found: install it (apt-get install chromium) or set CHROME_PATH"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

var printedPassword = regexp.MustCompile(`Created the user "admin" with password (\S+)`)

// startUISuite runs a server (on SQLite, or on databaseURL) without ADMIN_PASSWORD, so that it generates
// and prints the first admin's password as it does for a new user, and a
// browser at a 1024-px-wide window.
func startUISuite(t *testing.T, databaseURL string) *uiSuite {
	t.Helper()
	chrome := findBrowser(t)
	port := freePort(t)
	env := map[string]string{
		"PORT": itoa(port), "HTTP_HOST": "127.0.0.1", "DATA_DIR": t.TempDir(),
		"INIT_ADMIN_API_TOKENS": adminToken, "INIT_CLIENT_API_TOKENS": clientToken, "LOG_LEVEL": "warn",
		// The public URL is the address the browser uses; SAML needs it.
		"SIGNALBOX_URL": base(port),
	}
	if databaseURL != "" {
		env["DATABASE_URL"] = databaseURL
	}
	p := start(t, envList(env), binary, "server")
	waitFor(t, base(port)+"/ready", http.StatusOK, p)
	m := p.waitOutput(t, printedPassword)
	if m == nil {
		t.Fatalf("the server printed no admin password:\n%s", p.Output())
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.WindowSize(1024, 900), chromedp.Flag("lang", "en-US"))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("starting %s: %v", chrome, err)
	}
	return &uiSuite{url: base(port), password: m[1], browser: browser}
}

// flow is one person's browser session in a flow.
type flow struct {
	t   *testing.T
	s   *uiSuite
	ctx context.Context // the tab, with the flow's deadline
	tab context.Context // the tab without it, to look at a failed page
	// errors are the page's uncaught exceptions and console errors.
	errors chan string
}

// newFlow opens a browser context of its own (its own cookie jar).
func (s *uiSuite) newFlow(t *testing.T) *flow {
	t.Helper()
	ctx, cancel := chromedp.NewContext(s.browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	f := &flow{t: t, s: s, ctx: ctx, errors: make(chan string, 100)}
	// Open the tab before the timeout: the first run of a context creates it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		if ex, ok := ev.(*cdpruntime.EventExceptionThrown); ok {
			msg := ex.ExceptionDetails.Text
			if ex.ExceptionDetails.Exception != nil {
				msg += " " + ex.ExceptionDetails.Exception.Description
			}
			select {
			case f.errors <- msg:
			default:
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTimeout)
	f.tab, f.ctx = ctx, tctx
	t.Cleanup(func() {
		close(f.errors)
		for e := range f.errors {
			t.Errorf("the page threw: %s", e)
		}
	})
	return f
}

// run runs browser actions and fails the flow on an error, with what the
// page showed at that moment.
func (f *flow) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	f.t.Helper()
	if err := chromedp.Do(f.ctx, actions...); err != nil {
		// The flow's own deadline may be what ended it: look at the page
		// through the tab, with a few seconds of its own.
		ctx, cancel := context.WithTimeout(f.tab, 5*time.Second)
		defer cancel()
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + location.search + (document.querySelector('dialog[open]') ? ' (a dialog is open)' : '') + (document.querySelector('main[aria-busy]') ? ' (busy)' : '')`))
		text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		f.t.Fatalf("%s: %v\nat %s, page text:\n%s", what, err, state, text)
	}
}

// visit opens a path of the server and waits for its heading.
func (f *flow) visit(path, heading string) {
	f.t.Helper()
	f.run("opening "+path, chromedp.Navigate(f.s.url+path), waitText("h1", heading))
}

// typeInto replaces the value of the input matching the CSS selector sel
// by typing text into it.
func typeInto(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(chromedp.CSS(sel)),
		evalJS(fmt.Sprintf(`document.querySelector(%q).value = ''`, sel)),
		chromedp.SendKeys(chromedp.CSS(sel), text))
}

// evalJS runs JavaScript in the page for its effect.
func evalJS(js string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](js)(ctx, t)
		return err
	})
}

// choose picks value in the <select> matching the CSS selector sel, as a
// person does with the keyboard or mouse (a change event follows).
func choose(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.WaitVisible(chromedp.CSS(sel)),
		evalJS(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; e.dispatchEvent(new Event('change', {bubbles: true})); })()`, sel, value)))
}

// setInput sets an input that takes no typing (date-time pickers) and
// fires its input event.
func setInput(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.WaitVisible(chromedp.CSS(sel)),
		evalJS(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; e.dispatchEvent(new Event('input', {bubbles: true})); })()`, sel, value)))
}

// click clicks the element matching the CSS selector sel.
func click(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)
}

// clickButton clicks the visible button with exactly this text.
func clickButton(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.Search(fmt.Sprintf(`//button[normalize-space(.)=%q]`, text)), chromedp.NodeVisible)
}

// login signs in through the sign-in page.
func (f *flow) login(user, password string) {
	f.t.Helper()
	f.run("signing in as "+user,
		chromedp.Navigate(f.s.url+"/login"),
		typeInto(`input[name=username]`, user),
		typeInto(`input[name=password]`, password),
		click(`form.login button[type=submit]`),
		waitText("h1", "Projects"))
}

// unnamedControls lists the visible controls of the page that have no
// accessible name: inputs without a label, buttons without text or label.
const unnamedControls = `[...document.querySelectorAll('input, select, textarea, button, a[href], [role=switch]')]
	.filter(e => e.getClientRects().length > 0 && e.type !== 'hidden')
	.filter(e => !(e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || (e.labels && e.labels.length) ||
		(['BUTTON', 'A'].includes(e.tagName) && e.textContent.trim())))
	.map(e => e.outerHTML.slice(0, 120))`

// screenshot saves the page as artifacts/<name>.png for people to look at,
// and checks what a picture does not show: every control has a name, and
// nothing is wider than the 1024-px window.
func (f *flow) screenshot(name string) {
	f.t.Helper()
	if bad := eval[[]string](f, unnamedControls); len(bad) > 0 {
		f.t.Errorf("%s: controls without an accessible name: %v", name, bad)
	}
	if w := eval[int](f, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
		f.t.Errorf("%s: the page is %d px wider than the window", name, w)
	}
	png, err := chromedp.Run(f.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		f.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := "artifacts"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// waitText waits until a visible element matching the CSS selector sel
// contains text.
func waitText(sel, text string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`[...document.querySelectorAll(%q)].some(e => e.getClientRects().length > 0 && e.textContent.includes(%q))`, sel, text)
	return waitJS(js, fmt.Sprintf("%s containing %q", sel, text))
}

// dragOnto drags the element matching from onto the one matching to with
// the drag events a browser fires for a mouse drag (dragstart, dragover,
// drop, dragend), sharing one DataTransfer as a real drag does.
func dragOnto(from, to string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`(() => {
		const a = document.querySelector(%q), b = document.querySelector(%q);
		if (!a || !b) return false;
		const dt = new DataTransfer();
		const fire = (el, type) => el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
		fire(a, 'dragstart');
		fire(b, 'dragenter');
		const accepted = !fire(b, 'dragover');
		if (accepted) fire(b, 'drop');
		fire(a, 'dragend');
		return accepted;
	})()`, from, to)
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		ok, err := chromedp.Evaluate[bool](js)(ctx, t)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s does not accept a drop of %s", to, from)
		}
		return nil
	})
}

// settled waits until the page is not busy redrawing after a change (main
// carries aria-busy meanwhile), so that the next click finds the new
// controls rather than ones about to be replaced.
func settled() chromedp.Action[chromedp.Void] {
	return waitJS(`!document.querySelector('main[aria-busy]')`, "the page drawn after the change")
}

// waitJS waits until the expression is true.
func waitJS(js, what string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		deadline := time.Now().Add(15 * time.Second)
		for {
			ok, err := chromedp.Evaluate[bool](js)(ctx, t)
			if err == nil && ok {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("no %s in 15 s", what)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// eval evaluates a JavaScript expression in the page, awaiting a promise.
func eval[T any](f *flow, js string) T {
	f.t.Helper()
	v, err := chromedp.Run(f.ctx, chromedp.Evaluate[T](js, func(p *cdpruntime.EvaluateParams) { p.AwaitPromise = new(true) }))
	if err != nil {
		f.t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// textOf reads the text of the first element matching sel.
func (f *flow) textOf(sel string) string {
	f.t.Helper()
	return strings.TrimSpace(eval[string](f, fmt.Sprintf(`(document.querySelector(%q) || {textContent: ''}).textContent`, sel)))
}

// count is the number of elements matching the CSS selector sel.
func (f *flow) count(sel string) int {
	f.t.Helper()
	return eval[int](f, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

// fetchJSON runs a same-origin fetch from the page, as a person could from
// the browser console with the page's cookie, and returns the status.
func (f *flow) fetchJSON(method, path string, body any) int {
	f.t.Helper()
	b, _ := json.Marshal(body)
	return eval[int](f, fmt.Sprintf(`fetch(%q, {method: %q, credentials: 'same-origin', headers: {'Content-Type': 'application/json'}, body: %s}).then(r => r.status)`,
		path, method, map[bool]string{true: "undefined", false: strconv.Quote(string(b))}[body == nil]))
}

// setCookie replaces a cookie of this flow's browser context.
func (f *flow) setCookie(name, value string) {
	f.t.Helper()
	f.run("setting cookie "+name, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{Name: name, Value: value, URL: f.s.url, HTTPOnly: new(true)})
		return err
	}))
}

// slowRequests delays the answers to requests of this flow's tab whose URL
// matches the URL pattern (relative to the server) by latency; a zero
// latency ends the delay. A page must then work while its data is on the
// way, as it does on a slow network.
func (f *flow) slowRequests(pattern string, latency time.Duration) {
	f.t.Helper()
	f.run("delaying "+pattern, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		rules := []*network.Conditions{}
		if latency > 0 {
			rules = append(rules, &network.Conditions{URLPattern: f.s.url + pattern, Latency: float64(latency.Milliseconds()), DownloadThroughput: -1, UploadThroughput: -1})
		}
		// The browser's protocol wants "offline" beside the rules, which
		// the binding's parameters lack.
		type params struct {
			Offline bool                  `json:"offline"`
			Rules   []*network.Conditions `json:"matchedNetworkConditions"`
		}
		cmd := cdp.Command[params, network.EmulateNetworkConditionsByRuleResult]{Method: network.CommandEmulateNetworkConditionsByRule}
		_, err := chromedp.Call(ctx, cmd, params{Rules: rules})
		return err
	}))
}

// clientFeature is one flag as GET /api/client/features shows it to token.
func clientFeature(t *testing.T, server, token, name string) map[string]any {
	t.Helper()
	status, data := call(t, "GET", server+"/api/client/features", token, nil)
	if status != http.StatusOK {
		t.Fatalf("client features: %d %s", status, data)
	}
	var body struct {
		Features []map[string]any `json:"features"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	for _, f := range body.Features {
		if f["name"] == name {
			return f
		}
	}
	t.Fatalf("client features: no %s in %s", name, data)
	return nil
}
