package sysfsmon

// counterFiles keeps, for one Poll, the counter folders' listings and
// their files open between ticks: each counter is then one pread(2) from
// offset 0 (kernfs runs the attribute's show() again for a read from the
// start) instead of a walk through class/infiniband's symlinks, an open
// and a close. The listings are read again on full ticks, so counters
// that appear with a driver show up within FullEvery ticks. Only the
// poll loop's goroutine uses it; close ends it with the poll.
type counterFiles struct {
	fds     map[string]int
	dirs    map[string][]string
	drivers map[string]string
	relist  bool
}

func newCounterFiles() *counterFiles {
	return &counterFiles{fds: map[string]int{}, dirs: map[string][]string{}, drivers: map[string]string{}, relist: true}
}

// driver is the registry's driver of a device (Device.Driver), kept
// until the next full tick.
func (c *counterFiles) driver(f *FS, dev string) string {
	if c != nil {
		if d, ok := c.drivers[dev]; ok && !c.relist {
			return d
		}
	}
	d := f.DeviceDriver(dev)
	if c != nil {
		c.drivers[dev] = d
	}
	return d
}

// list is f.listDir, remembered until the next full tick.
func (c *counterFiles) list(f *FS, dir string) ([]string, error) {
	if c == nil {
		return f.listDir(dir)
	}
	if names, ok := c.dirs[dir]; ok && !c.relist {
		return names, nil
	}
	names, err := f.listDir(dir)
	if err == nil {
		c.dirs[dir] = names
	}
	return names, err
}

// startTick tells whether this tick lists the folders again.
func (c *counterFiles) startTick(full bool) {
	if c == nil {
		return
	}
	c.relist = full
	if full {
		clear(c.dirs)
		clear(c.drivers)
	}
}

// read is f.read through a file kept open.
func (c *counterFiles) read(f *FS, path string) (string, error) {
	if c == nil || !f.readsLive() {
		return f.read(path)
	}
	s, err := c.pread(path)
	if err != nil {
		// A file gone with its device, or one that never opened: read it
		// the ordinary way, so the error is the one f.read gives.
		c.forget(path)
		return f.read(path)
	}
	return s, nil
}

// close closes every kept file.
func (c *counterFiles) close() {
	if c == nil {
		return
	}
	for p := range c.fds {
		c.forget(p)
	}
}
