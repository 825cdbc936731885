// Package privfile creates the files verbscope records into (netlink
// exchanges, traces, recordings of a host): private to their owner and
// never through a symlink, whatever the umask or a planted link (Create).
// cli and rec share it, so every recording is made the same safe way.
package privfile
