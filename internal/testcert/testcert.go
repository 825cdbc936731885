// Package testcert makes what tests of TLS and basic auth need: a
// self-signed certificate for given IP addresses and an exporter-toolkit
// web config with a bcrypt user. It is only imported by tests.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Files are the paths WebConfig wrote.
type Files struct {
	Cert, Key, Config string
	// Pool trusts Cert.
	Pool *x509.CertPool
}

// WebConfig writes into dir a certificate and key valid for ips (one
// hour, its own CA) and web.yml, a web config serving TLS with them and
// basic auth for user with password, bcrypt-hashed.
func WebConfig(t testing.TB, dir, user, password string, ips ...net.IP) Files {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "verbscope test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: ips, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	f := Files{Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem"), Config: filepath.Join(dir, "web.yml")}
	// Names relative to web.yml, which exporter-toolkit resolves against
	// its folder: the folder can be mounted elsewhere (a VM's share).
	yml := "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  " + user + ": " + string(hash) + "\n"
	for path, b := range map[string][]byte{
		f.Cert:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		f.Key:    pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}),
		f.Config: []byte(yml),
	} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	f.Pool = x509.NewCertPool()
	f.Pool.AddCert(cert)
	return f
}
