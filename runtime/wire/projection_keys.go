package wire

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// MapKeys is the type of a projected map's key names (a `:keys` field of a
// projection informer-gen generates, such as a Secret's .data:keys): the
// names of the map's entries, sorted (by bytes, as encoding/json sorts
// them; the order on the wire is not a contract) and without duplicates,
// or nil when the map is absent or empty. The values are never kept: the
// decoders skip them on the wire. Names are shared between objects (see
// the decoders), so a name such as "tls.crt" is held once for a whole
// cache; the strings are immutable, the slice is the object's own.
//
// A MapKeys is filled by decoding, from protobuf by (*ProtobufDecoder).MapKey,
// from JSON by its UnmarshalJSONFrom (go-json-experiment/json, which the
// codecs use) or UnmarshalJSON (encoding/json): a JSON object is read as the
// map it stands for (its member names; a duplicate name is kept once, and a
// second object for the same field adds its names, as decoding into a Go map
// merges), null clears it (as it clears a map), and an array of strings is
// read as the names themselves (what encoding/json writes for a MapKeys, so a
// projection encoded and read back is equal). The member values are skipped
// with only JSON's syntax checked: a value the map's type would reject (a
// number where the map holds strings) is not an error here.
type MapKeys []string

// Has reports whether name is one of the keys.
func (k MapKeys) Has(name string) bool {
	_, found := slices.BinarySearch(k, name)
	return found
}

// UnmarshalJSONFrom reads one JSON value into k (see MapKeys). For
// go-json-experiment/json; call json.UnmarshalDecode, not this method.
func (k *MapKeys) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadToken()
		*k = nil
		return err
	case '{', '[':
	default:
		v, err := dec.ReadValue() // a syntax error first
		if err != nil {
			return err
		}
		return fmt.Errorf("cannot read a JSON %s as map keys: want an object (or an array of names)", v.Kind())
	}
	open, err := dec.ReadToken()
	if err != nil {
		return err
	}
	var scratch [16]string
	names := scratch[:0]
	if open.Kind() == '[' {
		*k = nil // an array replaces, as it replaces a slice
		for dec.PeekKind() != ']' {
			if dec.PeekKind() != '"' {
				v, err := dec.ReadValue()
				if err != nil {
					return err
				}
				return fmt.Errorf("cannot read a JSON %s as a map key: want a string", v.Kind())
			}
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			name, err := jsonKeyName(v)
			if err != nil {
				return err
			}
			names = append(names, name)
		}
	} else {
		for dec.PeekKind() != '}' {
			v, err := dec.ReadValue() // the member's name
			if err != nil {
				return err
			}
			name, err := jsonKeyName(v)
			if err != nil {
				return err
			}
			names = append(names, name)
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	k.merge(names)
	return nil
}

// UnmarshalJSON reads data, one JSON value, into k (see MapKeys), for
// encoding/json.
func (k *MapKeys) UnmarshalJSON(data []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsonBaseOptions)
	if err := k.UnmarshalJSONFrom(dec); err != nil {
		return err
	}
	if _, err := dec.ReadToken(); err == nil {
		return fmt.Errorf("map keys: more than one JSON value")
	}
	return nil
}

// MapKey reads the field Next read, one entry of a map field, and adds its
// key to *k: the entry's value is skipped (never copied), its key interned
// (see MapKeys). The entry is read as the generated Unmarshal of a map of
// strings to strings, bytes or messages reads it (an entry without a key
// has the key ""). For generated code.
func (d *ProtobufDecoder) MapKey(k *MapKeys) {
	if d.err != nil {
		return
	}
	if *k == nil {
		// The first entry: room for every entry of the field in the rest
		// of the message, so the slice is allocated once.
		*k = make(MapKeys, 0, d.countField(d.field))
	}
	var key []byte
	d.mapEntry(func() { key = d.rawValue() }, func() { d.rawValue() })
	if d.err == nil {
		k.add(internKeyName(key))
	}
}

// countField counts the fields numbered n from the field Next read to the
// end of the message being read, the one just read included; it stops
// counting at the first malformed field (reading reports it).
func (d *ProtobufDecoder) countField(n int32) int {
	count := 1
	p := pbBytes{b: d.b[:d.end], i: d.i}
	if err := p.skip(d.wt); err != nil {
		return count
	}
	for p.i < len(p.b) {
		tag, err := p.varint()
		if err != nil {
			return count
		}
		if int32(tag>>3) == n {
			count++
		}
		if err := p.skip(int(tag & 7)); err != nil {
			return count
		}
	}
	return count
}

// add inserts name in order, once. Servers send a map's entries sorted, so
// this is an append but for a duplicate.
func (k *MapKeys) add(name string) {
	ks := *k
	if n := len(ks); n == 0 || ks[n-1] < name {
		*k = append(ks, name)
		return
	}
	if i, found := slices.BinarySearch(ks, name); !found {
		*k = slices.Insert(ks, i, name)
	}
}

// merge adds names (scratch memory) to k, keeping k exactly as long as it
// needs to be when it was empty.
func (k *MapKeys) merge(names []string) {
	if len(*k) > 0 {
		for _, n := range names {
			k.add(n)
		}
		return
	}
	if len(names) == 0 {
		*k = nil
		return
	}
	slices.Sort(names)
	names = slices.Compact(names)
	*k = append(make(MapKeys, 0, len(names)), names...)
}

// jsonKeyName returns the interned Go string of the JSON string v (with its
// quotes), with encoding/json v1's treatment of escapes and invalid UTF-8.
func jsonKeyName(v jsontext.Value) (string, error) {
	b := v[1 : len(v)-1]
	for _, ch := range b {
		if ch == '\\' || ch >= 0x80 {
			s, err := unquoteSlow(v)
			if err != nil {
				return "", err
			}
			return internKeyName([]byte(s)), nil
		}
	}
	return internKeyName(b), nil
}

// keyNames holds the map key names decoded into MapKeys, shared by every
// object of the process: a cache of Secrets holds "tls.crt" once. It is
// bounded (maxKeyNames names of at most maxKeyNameLen bytes, a few hundred
// KB at worst): names beyond it are allocated per object, so a stream of
// distinct names cannot grow it.
var keyNames = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

const (
	maxKeyNames   = 1024
	maxKeyNameLen = 128
)

// internKeyName returns string(b), the one copy keyNames holds when it
// holds it (or has room for it).
func internKeyName(b []byte) string {
	if len(b) > maxKeyNameLen {
		return string(b)
	}
	keyNames.RLock()
	s, ok := keyNames.m[string(b)]
	keyNames.RUnlock()
	if ok {
		return s
	}
	s = string(b)
	keyNames.Lock()
	defer keyNames.Unlock()
	if have, ok := keyNames.m[s]; ok {
		return have
	}
	if len(keyNames.m) < maxKeyNames {
		keyNames.m[s] = s
	}
	return s
}
