// The npm packages installed here (unleash-server and its dependencies)
// include stray Go files; this module boundary keeps them out of the
// signalbox module, its go vet, staticcheck and tests.
module signalbox.test/unleash-npm

go 1.26
