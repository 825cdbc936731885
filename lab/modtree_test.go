package lab

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeModule is the smallest ELF relocatable file with a .modinfo section,
// which is all moduleTree reads of a module.
func fakeModule(t *testing.T, modinfo string) []byte {
	t.Helper()
	shstr := "\x00.modinfo\x00.shstrtab\x00"
	infoOff := uint64(64)
	strOff := infoOff + uint64(len(modinfo))
	shOff := strOff + uint64(len(shstr))
	var b bytes.Buffer
	hdr := elf.Header64{
		Type: uint16(elf.ET_REL), Machine: uint16(elf.EM_X86_64), Version: uint32(elf.EV_CURRENT),
		Shoff: shOff, Ehsize: 64, Shentsize: 64, Shnum: 3, Shstrndx: 2,
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	hdr.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	hdr.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	binary.Write(&b, binary.LittleEndian, hdr)
	b.WriteString(modinfo)
	b.WriteString(shstr)
	for _, s := range []elf.Section64{
		{},
		{Name: 1, Type: uint32(elf.SHT_PROGBITS), Off: infoOff, Size: uint64(len(modinfo)), Addralign: 1},
		{Name: 10, Type: uint32(elf.SHT_STRTAB), Off: strOff, Size: uint64(len(shstr)), Addralign: 1},
	} {
		binary.Write(&b, binary.LittleEndian, s)
	}
	return b.Bytes()
}

// compress runs a host compressor (xz, zstd) over data, as Debian's
// kernel build does for CONFIG_MODULE_COMPRESS_*.
func compress(t *testing.T, tool string, data []byte) []byte {
	t.Helper()
	if tool == "gzip" {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		return b.Bytes()
	}
	cmd := exec.Command(tool, "-c")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -c: %v (make deps installs it)", tool, err)
	}
	return out
}

// A tree like Debian 13's: compressed modules of every kind the kernel
// build makes, one plain, and one the kernel builds in.
func TestModuleTreeCompressedAndBuiltin(t *testing.T) {
	root := filepath.Join(t.TempDir(), "usr", "lib", "modules", "6.12.0-1-amd64")
	files := map[string][]byte{
		"kernel/a.ko.xz":  compress(t, "xz", fakeModule(t, "depends=b,d\x00name=a\x00")),
		"kernel/b.ko.zst": compress(t, "zstd", fakeModule(t, "depends=\x00name=b\x00")),
		"kernel/d.ko.gz":  compress(t, "gzip", fakeModule(t, "name=d\x00")),
		"kernel/e.ko":     fakeModule(t, "depends=a\x00name=e\x00"),
		"modules.builtin": []byte("kernel/drivers/virtio/virtio_pci.ko\nkernel/fs/ext4/ext4.ko\n"),
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := openModuleTree(filepath.Dir(root))
	if err != nil {
		t.Fatal(err)
	}
	order, err := loadOrder([]string{"e", "virtio_pci"}, tree.Depends)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b", "d", "a", "e", "virtio_pci"}, order); diff != "" {
		t.Errorf("load order (-want +got):\n%s", diff)
	}
	for name, want := range map[string]bool{"virtio_pci": true, "ext4": true, "a": false, "nosuch": false} {
		if got := tree.Builtin(name); got != want {
			t.Errorf("Builtin(%s) = %v, want %v", name, got, want)
		}
	}
	for _, n := range []string{"a", "b", "d", "e"} {
		data, err := tree.Read(n)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte(elf.ELFMAG)) {
			t.Errorf("Read(%s) is not a plain ELF file: % x", n, data[:8])
		}
	}
	if _, err := tree.Read("virtio_pci"); err == nil {
		t.Error("Read of a built-in module: no error")
	}
}

func TestDecompressModuleErrors(t *testing.T) {
	for _, p := range []string{"x.ko.xz", "x.ko.zst", "x.ko.gz", "x.ko.bz2"} {
		if _, err := decompressModule(p, []byte("not compressed")); err == nil {
			t.Errorf("%s of garbage: no error", p)
		}
	}
}

func TestParseBuiltin(t *testing.T) {
	in := []byte("kernel/drivers/virtio/virtio_pci.ko\n\nkernel/crypto/crc32-generic.ko\nnot a module\n")
	if diff := cmp.Diff([]string{"virtio_pci", "crc32_generic"}, parseBuiltin(in)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func FuzzParseBuiltin(f *testing.F) {
	f.Add([]byte("kernel/drivers/virtio/virtio_pci.ko\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, n := range parseBuiltin(b) {
			if n == "" || bytes.ContainsAny([]byte(n), "/-") {
				t.Fatalf("module name %q is not normalized", n)
			}
		}
	})
}

// wholeELF takes the test binary itself and refuses it cut short, as a
// zstd stream followed by the bzImage's trailing bytes might be.
func TestWholeELF(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if !wholeELF(data) {
		t.Error("the test binary is not a whole ELF file")
	}
	if wholeELF(data[:len(data)/2]) {
		t.Error("half the test binary taken for a whole ELF file")
	}
	if wholeELF([]byte("\x7fELF and then nothing")) {
		t.Error("garbage taken for an ELF file")
	}
}
