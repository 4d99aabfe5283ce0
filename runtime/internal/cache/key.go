package cache

import (
	"fmt"
	"strings"
	"unsafe"
)

// Key returns the cache key of obj: "namespace/name", or "name" for
// cluster-scoped objects (empty namespace). It is the key every stage of the
// runtime uses, compatible with client-go's cache.MetaNamespaceKeyFunc for
// objects that are not tombstones.
func Key(obj interface {
	GetNamespace() string
	GetName() string
}) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// SplitKey splits a key made by Key into namespace and name. A key without
// "/" is a cluster-scoped name (namespace ""). It returns an error for an empty
// key, an empty namespace or name around the "/", or more than one "/".
func SplitKey(key string) (namespace, name string, err error) {
	ns, name, found := strings.Cut(key, "/")
	switch {
	case !found && key != "":
		return "", key, nil
	case key == "":
		return "", "", fmt.Errorf("invalid cache key %q: empty", key)
	case ns == "":
		return "", "", fmt.Errorf("invalid cache key %q: empty namespace before %q", key, "/")
	case name == "":
		return "", "", fmt.Errorf("invalid cache key %q: empty name", key)
	case strings.Contains(name, "/"):
		return "", "", fmt.Errorf("invalid cache key %q: more than one %q", key, "/")
	}
	return ns, name, nil
}

// Same reports whether a and b are the same object: the same pointer (or,
// for a value that is not pointer-shaped, the same boxed copy). Unlike ==
// on interfaces it never panics, whatever the dynamic type.
func Same[T any](a, b T) bool {
	ea, eb := any(a), any(b)
	wa := (*[2]unsafe.Pointer)(unsafe.Pointer(&ea))
	wb := (*[2]unsafe.Pointer)(unsafe.Pointer(&eb))
	return wa[0] == wb[0] && wa[1] == wb[1] && wa[1] != nil
}

// CompareKeys compares Key(a) and Key(b) as strings.Compare does, without
// building them: the order of kube-apiserver's storage keys
// (/registry/RESOURCE/namespace/name), in which its watch cache lists.
func CompareKeys(a, b interface {
	GetNamespace() string
	GetName() string
}) int {
	return compareParts(keyParts(a), keyParts(b))
}

// keyParts are the strings Key(obj) joins.
func keyParts(obj interface {
	GetNamespace() string
	GetName() string
}) [3]string {
	if ns := obj.GetNamespace(); ns != "" {
		return [3]string{ns, "/", obj.GetName()}
	}
	return [3]string{obj.GetName()}
}

// compareParts compares the concatenations of a's and b's parts.
func compareParts(a, b [3]string) int {
	i, j := 0, 0
	x, y := a[0], b[0]
	for {
		for x == "" && i < len(a)-1 {
			i++
			x = a[i]
		}
		for y == "" && j < len(b)-1 {
			j++
			y = b[j]
		}
		switch {
		case x == "" && y == "":
			return 0
		case x == "":
			return -1
		case y == "":
			return 1
		}
		n := min(len(x), len(y))
		if c := strings.Compare(x[:n], y[:n]); c != 0 {
			return c
		}
		x, y = x[n:], y[n:]
	}
}
