package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var okEntries = []entry{
	{name: "data/", mode: fs.ModeDir},
	{name: "data/a.txt", body: []byte("hello")},
	{name: "./b.csv", body: []byte("x,y\n1,2\n")},
	{name: `win\c.txt`, body: []byte("c")},
}

var okFiles = []string{"b.csv", "data/a.txt", "win/c.txt"}

func checkTree(t *testing.T, dst string, rep Report, format string) {
	t.Helper()
	if rep.Format != format {
		t.Errorf("format = %q, want %q", rep.Format, format)
	}
	if !reflect.DeepEqual(rep.Files, okFiles) {
		t.Errorf("files = %v, want %v", rep.Files, okFiles)
	}
	b, err := os.ReadFile(filepath.Join(dst, "data", "a.txt"))
	if err != nil || string(b) != "hello" {
		t.Errorf("data/a.txt = %q, %v", b, err)
	}
	ents, _ := os.ReadDir(dst)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".unpack-") {
			t.Errorf("staging directory left behind: %s", e.Name())
		}
	}
}

func TestUnpackFormats(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()

	zipPath := filepath.Join(tmp, "a.zip")
	writeZip(t, zipPath, okEntries)
	tarPath := filepath.Join(tmp, "a.tar")
	writeTar(t, tarPath, false, okEntries)
	tgzPath := filepath.Join(tmp, "a.tgz")
	writeTar(t, tgzPath, true, okEntries)

	for _, c := range []struct{ path, format string }{
		{zipPath, "zip"}, {tarPath, "tar"}, {tgzPath, "tar.gz"},
	} {
		t.Run(c.format, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out")
			rep, err := Unpack(ctx, c.path, dst, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, dst, rep, c.format)
		})
	}

	t.Run("7z", func(t *testing.T) {
		bin, err := exec.LookPath("7z")
		if err != nil {
			t.Skip("7z (p7zip-full) not installed; see scripts/install-test-deps.sh")
		}
		src := t.TempDir()
		for _, f := range okFiles {
			p := filepath.Join(src, filepath.FromSlash(f))
			os.MkdirAll(filepath.Dir(p), 0o755)
			body := "c"
			switch f {
			case "data/a.txt":
				body = "hello"
			case "b.csv":
				body = "x,y\n1,2\n"
			}
			os.WriteFile(p, []byte(body), 0o644)
		}
		out := filepath.Join(t.TempDir(), "a.7z")
		cmd := exec.Command(bin, "a", "-bd", "-y", out, ".")
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("7z: %v\n%s", err, b)
		}
		dst := filepath.Join(t.TempDir(), "out")
		rep, err := Unpack(ctx, out, dst, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		checkTree(t, dst, rep, "7z")
	})
}

func TestUnpackPlainFile(t *testing.T) {
	src := filepath.Join(t.TempDir(), "points.geojson")
	os.WriteFile(src, []byte(`{"type":"FeatureCollection","features":[]}`), 0o644)
	dst := t.TempDir()
	rep, err := Unpack(context.Background(), src, dst, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != "file" || !reflect.DeepEqual(rep.Files, []string{"points.geojson"}) {
		t.Fatalf("report = %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(dst, "points.geojson")); err != nil {
		t.Fatal(err)
	}
}

func TestUnpackSkipsInternalSymlink(t *testing.T) {
	tmp := t.TempDir()
	p := filepath.Join(tmp, "l.zip")
	writeZip(t, p, []entry{{name: "a/x.txt", body: []byte("x")}, {name: "a/link", mode: fs.ModeSymlink, link: "x.txt"}})
	dst := filepath.Join(tmp, "out")
	rep, err := Unpack(context.Background(), p, dst, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Skipped, []string{"a/link"}) {
		t.Fatalf("skipped = %v", rep.Skipped)
	}
	if _, err := os.Lstat(filepath.Join(dst, "a", "link")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("symlink was created: %v", err)
	}
}

func TestUnpackRejects(t *testing.T) {
	bomb := bytes.Repeat([]byte{0}, 20<<20) // 20 MiB of zeros deflates to ~20 KiB
	many := make([]entry, 12)
	for i := range many {
		many[i] = entry{name: "f" + itoa(int64(i)), body: []byte("x")}
	}
	cases := []struct {
		name    string
		build   func(t *testing.T, path string)
		lim     Limits
		want    error
		inEntry string
	}{
		{"zip dotdot", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: "ok.txt", body: []byte("ok")}, {name: "../evil", body: []byte("x")}})
		}, Limits{}, ErrUnsafePath, "../evil"},
		{"zip nested dotdot", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: "a/../../evil", body: []byte("x")}})
		}, Limits{}, ErrUnsafePath, "a/../../evil"},
		{"zip absolute", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: "/etc/evil", body: []byte("x")}})
		}, Limits{}, ErrUnsafePath, "/etc/evil"},
		{"zip windows absolute", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: `C:\evil`, body: []byte("x")}})
		}, Limits{}, ErrUnsafePath, `C:\evil`},
		{"zip symlink escape", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: "link", mode: fs.ModeSymlink, link: "../../etc/passwd"}})
		}, Limits{}, ErrUnsafePath, "link"},
		{"zip symlink absolute", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: "d/link", mode: fs.ModeSymlink, link: "/etc/passwd"}})
		}, Limits{}, ErrUnsafePath, "d/link"},
		{"tar symlink escape", func(t *testing.T, p string) {
			writeTar(t, p, false, []entry{{name: "a/link", mode: fs.ModeSymlink, link: "../../x"}})
		}, Limits{}, ErrUnsafePath, "a/link"},
		{"tar hardlink escape", func(t *testing.T, p string) {
			writeTar(t, p, true, []entry{{name: "h", hard: true, link: "../../etc/passwd"}})
		}, Limits{}, ErrUnsafePath, "h"},
		{"tar device", func(t *testing.T, p string) {
			writeTar(t, p, false, []entry{{name: "dev", mode: fs.ModeDevice}})
		}, Limits{}, ErrUnsafePath, "dev"},
		{"tar dotdot", func(t *testing.T, p string) {
			writeTar(t, p, true, []entry{{name: "../evil", body: []byte("x")}})
		}, Limits{}, ErrUnsafePath, "../evil"},
		{"zip bomb ratio", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: "bomb.bin", body: bomb}})
		}, Limits{MaxRatio: 100}, ErrTooLarge, "bomb.bin"},
		{"zip file size", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: "big.bin", body: bomb}})
		}, Limits{MaxFileBytes: 1 << 20}, ErrTooLarge, "big.bin"},
		{"tgz total size", func(t *testing.T, p string) {
			writeTar(t, p, true, []entry{{name: "a", body: bomb[:3<<20]}, {name: "b", body: bomb[:3<<20]}})
		}, Limits{MaxTotalBytes: 5 << 20}, ErrTooLarge, "b"},
		{"zip too many files", func(t *testing.T, p string) {
			writeZip(t, p, many)
		}, Limits{MaxFiles: 10}, ErrTooManyFiles, ""},
		{"tar too many files", func(t *testing.T, p string) {
			writeTar(t, p, false, many)
		}, Limits{MaxFiles: 10}, ErrTooManyFiles, "f10"},
		{"zip duplicate", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: "a", body: []byte("1")}, {name: "./a", body: []byte("2")}})
		}, Limits{}, ErrCorrupt, "./a"},
		{"zip truncated", func(t *testing.T, p string) {
			writeZip(t, p, okEntries)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)/2], 0o644)
		}, Limits{}, ErrCorrupt, ""},
		{"zip garbage", func(t *testing.T, p string) {
			os.WriteFile(p, []byte("this is not a zip file at all"), 0o644)
		}, Limits{}, ErrCorrupt, ""},
		{"zip bad crc", func(t *testing.T, p string) {
			writeZip(t, p, []entry{{name: "a.txt", body: bytes.Repeat([]byte("abc"), 1000)}})
			b, _ := os.ReadFile(p)
			b[40] ^= 0xff // inside the compressed data of the first entry
			os.WriteFile(p, b, 0o644)
		}, Limits{}, ErrCorrupt, "a.txt"},
		{"tgz truncated", func(t *testing.T, p string) {
			writeTar(t, p, true, []entry{{name: "a", body: bytes.Repeat([]byte("abcdefgh"), 10000)}})
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-20], 0o644)
		}, Limits{}, ErrCorrupt, ""},
		{"tgz plain gzip", func(t *testing.T, p string) {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(bytes.Repeat([]byte("a,b\n1,2\n"), 200))
			zw.Close()
			os.WriteFile(p, buf.Bytes(), 0o644)
		}, Limits{}, ErrUnsupported, ""},
		{"rar unsupported", func(t *testing.T, p string) {
			os.WriteFile(p, []byte("Rar!\x1a\x07\x00rest"), 0o644)
		}, Limits{}, ErrUnsupported, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			ext := ".zip"
			if strings.HasPrefix(c.name, "tar") {
				ext = ".tar"
			} else if strings.HasPrefix(c.name, "tgz") {
				ext = ".tgz"
			} else if strings.HasPrefix(c.name, "rar") {
				ext = ".rar"
			}
			p := filepath.Join(tmp, "in"+ext)
			c.build(t, p)

			// A pre-existing destination must be left exactly as it was.
			dst := filepath.Join(tmp, "out")
			os.MkdirAll(dst, 0o755)
			os.WriteFile(filepath.Join(dst, "keep"), []byte("k"), 0o644)

			_, err := Unpack(context.Background(), p, dst, c.lim)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			var ee *EntryError
			if !errors.As(err, &ee) {
				t.Fatalf("err %T is not *EntryError", err)
			}
			if c.inEntry != "" && ee.Entry != c.inEntry {
				t.Errorf("entry = %q, want %q (%v)", ee.Entry, c.inEntry, err)
			}
			ents, _ := os.ReadDir(dst)
			if len(ents) != 1 || ents[0].Name() != "keep" {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("destination changed: %v", names)
			}
			if _, err := os.Stat(filepath.Join(tmp, "evil")); err == nil {
				t.Error("escaped file written")
			}

			// A destination created by Unpack is removed again.
			fresh := filepath.Join(tmp, "fresh")
			if _, err := Unpack(context.Background(), p, fresh, c.lim); err == nil {
				t.Fatal("second unpack succeeded")
			}
			if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("fresh destination left behind: %v", err)
			}
		})
	}
}

func TestUnpackCancel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.zip")
	writeZip(t, p, okEntries)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Unpack(ctx, p, t.TempDir(), Limits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
