module github.com/informer-gen/informer-gen/hack/migratetest

go 1.26.0
