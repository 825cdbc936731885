package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Cache is the lab's folder of downloaded and built artifacts: the kernel
// .deb, the unpacked kernel, initramfs images by input hash, and the
// accelerator probe's verdict. Everything in it can be rebuilt.
type Cache struct {
	Dir string
	// Kernel names the guest kernel (a guestKernels name, "6.12"); empty
	// is $LAB_KERNEL, else the default. Each kernel has its own .deb,
	// unpacked folder and initramfs in Dir.
	Kernel string
	// Log receives one line per slow step, so nobody stares at a silent
	// terminal while 70 MB download or an image builds. Nil is quiet.
	Log io.Writer
}

// DefaultCacheDir is $VERBSCOPE_CACHE, else the user cache folder, else
// "" (which prepare refuses). Never a fixed folder under /tmp: anyone
// could create that first and hand a root user a kernel and initramfs
// of their own to boot, or a symlink to write through.
func DefaultCacheDir() string {
	if d := os.Getenv("VERBSCOPE_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "verbscope", "lab")
	}
	return ""
}

func (c *Cache) progress(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "lab: "+format+"\n", args...)
	}
}

// lock takes an exclusive lock on the cache so that two runs starting at
// once do not build the same image or unpack the same kernel together.
func (c *Cache) lock() (unlock func(), err error) {
	if c.Dir == "" {
		return nil, errors.New("lab: no cache folder: neither $VERBSCOPE_CACHE, $XDG_CACHE_HOME nor $HOME is set; set one, or pass --cache DIR")
	}
	// An absolute folder keeps image keys (which name source files) the
	// same from whatever folder the lab is started.
	if c.Dir, err = filepath.Abs(c.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("lab: cache %s: %w", c.Dir, err)
	}
	f, err := os.OpenFile(filepath.Join(c.Dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// assets are what a boot needs: the kernel and the initramfs.
type assets struct {
	Kernel *kernel
	Initrd string
}

// prepare makes sure the kernel and an up-to-date initramfs are cached.
func (c *Cache) prepare(ctx context.Context) (*assets, error) {
	unlock, err := c.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	k, err := c.ensureKernel(ctx)
	if err != nil {
		return nil, err
	}
	in, err := hostInputs(k.Modules)
	if err != nil {
		return nil, err
	}
	entries := plan(in)
	key, err := imageKey(entries)
	if err != nil {
		return nil, err
	}
	img := filepath.Join(c.Dir, "initrd", key+".cpio")
	if _, err := os.Stat(img); err == nil {
		now := time.Now()
		os.Chtimes(img, now, now) // marks it in use for the clean-up below
		return &assets{Kernel: k, Initrd: img}, nil
	}
	c.progress("building the guest initramfs (%d files from this host's packages)", len(entries))
	if err := os.MkdirAll(filepath.Dir(img), 0o755); err != nil {
		return nil, err
	}
	if err := writeImage(img, entries); err != nil {
		return nil, err
	}
	// Images whose inputs changed are dead weight, but another checkout
	// may still boot one: only those unused for a day go.
	old, _ := filepath.Glob(filepath.Join(c.Dir, "initrd", "*.cpio"))
	for _, o := range old {
		if st, err := os.Stat(o); err == nil && time.Since(st.ModTime()) > 24*time.Hour {
			os.Remove(o)
		}
	}
	return &assets{Kernel: k, Initrd: img}, nil
}

// copyFile copies src to dst with the given mode, creating dst's folder.
func copyFile(dst, src string, mode fs.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, mode)
}
