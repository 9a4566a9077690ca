package gitworld

import (
	"bytes"
	"testing"
)

// TestReleases: a release of a tag the repository lacks makes the tag at
// its target; one of a tag it has keeps the tag; a second release of a
// tag, a target that names nothing and a bad tag name are refused; the
// latest release skips drafts and prereleases; releases fork and
// snapshot with their repository, and a version 1 snapshot still reads.
func TestReleases(t *testing.T) {
	w, r := newRepo(t, Limits{})
	main := must[Ref](t)(r.Ref("heads/main"))
	v1Snap := must[[]byte](t)(w.Snapshot())
	v1Snap = append([]byte(snapshotMagicV1), bytes.TrimPrefix(v1Snap, []byte(snapshotMagic))...)
	v1Snap = v1Snap[:len(v1Snap)-1] // the repository's empty releases part

	first := must[Release](t)(r.CreateRelease(Release{Tag: "v1.0.0", Name: "One", Author: "u", Created: 10}))
	if want, have := 1, first.Number; want != have {
		t.Errorf("first release's number: want %d, have %d", want, have)
	}
	if want, have := "main", first.Target; want != have {
		t.Errorf("first release's target: want the default branch %s, have %s", want, have)
	}
	tag := must[Ref](t)(r.Ref("tags/v1.0.0"))
	if want, have := main.SHA, tag.SHA; want != have {
		t.Errorf("the release's new tag: want it at main's %s, have %s", want, have)
	}
	must[Release](t)(r.CreateRelease(Release{Tag: "v2.0.0-rc1", Target: main.SHA, Prerelease: true}))

	for _, bad := range []struct {
		name string
		rel  Release
		want error
	}{
		{"a second release of a tag", Release{Tag: "v1.0.0"}, ErrExists},
		{"a target that names nothing", Release{Tag: "v3", Target: "nope"}, ErrInvalid},
		{"a tag git refuses", Release{Tag: "a..b"}, ErrInvalid},
		{"no tag", Release{}, ErrInvalid},
	} {
		t.Run(bad.name, func(t *testing.T) {
			_, err := r.CreateRelease(bad.rel)
			mustErr(t, err, bad.want)
		})
	}

	if latest := must[Release](t)(r.LatestRelease()); latest.Tag != "v1.0.0" {
		t.Errorf("latest: want v1.0.0 (the newer one is a prerelease), have %s", latest.Tag)
	}
	if list := must[[]Release](t)(r.Releases()); len(list) != 2 || list[0].Tag != "v2.0.0-rc1" {
		t.Errorf("releases: want v2.0.0-rc1 then v1.0.0, have %+v", list)
	}
	if got := must[Release](t)(r.ReleaseByTag("v2.0.0-rc1")); got.Number != 2 {
		t.Errorf("by tag: want number 2, have %d", got.Number)
	}

	f := w.Fork()
	fr := must[*Repo](t)(f.Repo("octo/demo"))
	must[Release](t)(fr.CreateRelease(Release{Tag: "fork-only"}))
	if _, err := r.ReleaseByTag("fork-only"); err == nil {
		t.Errorf("the fork's release is seen in its source")
	}
	if err := r.DeleteRelease(1); err != nil {
		t.Fatal(err)
	}
	if _, err := fr.Release(1); err != nil {
		t.Errorf("a release deleted in the source is gone from the fork: %v", err)
	}
	if _, err := r.Ref("tags/v1.0.0"); err != nil {
		t.Errorf("a deleted release's tag: want it kept, have %v", err)
	}

	back := must[*World](t)(Restore(must[[]byte](t)(f.Snapshot()), Limits{}))
	br := must[*Repo](t)(back.Repo("octo/demo"))
	if list := must[[]Release](t)(br.Releases()); len(list) != 3 || list[0].Tag != "fork-only" || !list[1].Prerelease || list[2].Created != 10 {
		t.Errorf("restored releases: want fork-only, v2.0.0-rc1 (a prerelease), v1.0.0 (created 10), have %+v", list)
	}
	old := must[*World](t)(Restore(v1Snap, Limits{}))
	if list := must[[]Release](t)(must[*Repo](t)(old.Repo("octo/demo")).Releases()); len(list) != 0 {
		t.Errorf("a version 1 snapshot: want no releases, have %d", len(list))
	}
}
