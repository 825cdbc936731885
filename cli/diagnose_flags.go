package cli

import (
	"flag"
	"strings"

	"github.com/verbscope/verbscope/diagnose"
)

// peerFlags are the flags that say which exporters to ask of the other
// end of a QP the diagnosis judges, the same on dash, diagnose, export and
// record: --peers, --prometheus, --peer-auth and --peer-ca.
type peerFlags struct {
	peers, auth, ca string
	prom            *string
}

// addPeerFlags declares them on fs. prom is a --prometheus the command
// already has (dash's fleet view asks the same server), nil to declare
// one.
func addPeerFlags(fs *flag.FlagSet, prom *string) *peerFlags {
	p := &peerFlags{prom: prom}
	fs.StringVar(&p.peers, "peers", "", "diagnosis: ask these exporters (`URL,...`: http://10.0.1.2:9879, or a host) of the other end of a stuck QP; by default the host its destination GID names, at port 9879")
	if prom == nil {
		p.prom = fs.String("prometheus", "", "diagnosis: the fleet's hosts are the exporters this Prometheus `URL` scrapes")
	}
	fs.StringVar(&p.auth, "peer-auth", "", "diagnosis: a `file` holding user:password for exporters behind basic auth")
	fs.StringVar(&p.ca, "peer-ca", "", "diagnosis: verify https exporters against this CA `file` instead of the system's")
	return p
}

// config checks the flags and returns what they say.
func (p *peerFlags) config() (diagnose.PeerConfig, error) {
	urls, err := diagnose.ParsePeerURLs(p.peers)
	if err != nil {
		return diagnose.PeerConfig{}, usageErrorf("--peers: %s", strings.TrimPrefix(err.Error(), "diagnose: "))
	}
	return diagnose.PeerConfig{URLs: urls, Prometheus: *p.prom, AuthFile: p.auth, CAFile: p.ca}, nil
}

// open returns the peers the flags name, their files read.
func (p *peerFlags) open() (*diagnose.HTTPPeers, error) {
	cfg, err := p.config()
	if err != nil {
		return nil, err
	}
	return diagnose.NewHTTPPeers(cfg)
}
