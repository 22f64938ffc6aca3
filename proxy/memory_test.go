package proxy

import "testing"

// TestInstallKeepsNoPayload: the proxy never explains, so its snapshot
// must not hold the decoded payload (megabytes at thousands of flags)
// once the configuration is compiled.
func TestInstallKeepsNoPayload(t *testing.T) {
	p := startProxy(t, testConfig(t, deadURL(t))).p
	if !p.install(genPayload(50), fromUpstream) {
		t.Fatal("install refused")
	}
	st := p.state.Load()
	if st.snap.Len() != 50 {
		t.Fatalf("snapshot has %d flags", st.snap.Len())
	}
	if st.snap.Source() != nil {
		t.Error("the snapshot keeps the payload")
	}
}
