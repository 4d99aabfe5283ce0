package wire

import "reflect"

// RegisterGeneratedDecoder makes the differential tests run the struct type
// t also with the GeneratedDecoder option o. Only for init functions of
// external test files.
func RegisterGeneratedDecoder(t reflect.Type, o JSONOption) { generatedDecoders[t] = o }
