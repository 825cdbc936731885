package cli

import "github.com/verbscope/verbscope/verbs"

func verbsBackend() string { return verbs.Backend }
