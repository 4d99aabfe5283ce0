module github.com/informer-gen/informer-gen/hack/uselocal

go 1.26.0
