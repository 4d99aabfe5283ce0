package wire

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// semObj has a field of every kind the decoder treats differently, and of
// every type in apimachinery with its own UnmarshalJSON.
type semObj struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Str       string                       `json:"str"`
	Int       int                          `json:"int"`
	Int64     int64                        `json:"int64"`
	PInt64    *int64                       `json:"pint64"`
	Uint8     uint8                        `json:"uint8"`
	Bool      bool                         `json:"bool"`
	Float     float64                      `json:"float"`
	Strs      []string                     `json:"strs"`
	Map       map[string]string            `json:"map"`
	Any       any                          `json:"any"`
	AnyMap    map[string]any               `json:"anyMap"`
	Bytes     []byte                       `json:"bytes"`
	Data      map[string][]byte            `json:"data"`
	Arr       [2]int                       `json:"arr"`
	Time      metav1.Time                  `json:"time"`
	PTime     *metav1.Time                 `json:"ptime"`
	Micro     metav1.MicroTime             `json:"micro"`
	Dur       metav1.Duration              `json:"dur"`
	PDur      *metav1.Duration             `json:"pdur"`
	Qty       resource.Quantity            `json:"qty"`
	PQty      *resource.Quantity           `json:"pqty"`
	Qtys      map[string]resource.Quantity `json:"qtys"`
	IOS       intstr.IntOrString           `json:"ios"`
	PIOS      *intstr.IntOrString          `json:"pios"`
	Raw       runtime.RawExtension         `json:"raw"`
	Fields    *metav1.FieldsV1             `json:"fields"`
	U         *unstructured.Unstructured   `json:"u"`
	UL        []unstructured.Unstructured  `json:"ul"`
	Nested    semNested                    `json:"nested"`
	PNested   *semNested                   `json:"pnested"`
	Nesteds   []semNested                  `json:"nesteds"`
	MapNested map[string]semNested         `json:"mapNested"`
	StrNum    int                          `json:"strNum,string"`
	Ignored   string                       `json:"-"`
	Dash      string                       `json:"with-dash"`
	NoTag     string
	Inline    semNested `json:",inline"` // not anonymous: v1 names it "Inline"
	SemEmbedded
	*SemEmbeddedPtr
	unexported string
}

type semNested struct {
	A string            `json:"a,omitempty"`
	B string            `json:"b,omitempty"`
	M map[string]string `json:"m,omitempty"`
}

// SemEmbedded is embedded without a tag: its fields are promoted.
type SemEmbedded struct {
	EmbeddedField string `json:"embeddedField"`
	Str           string `json:"str"` // shadowed by semObj.Str
}

// SemEmbeddedPtr is embedded by pointer.
type SemEmbeddedPtr struct {
	PtrField string `json:"ptrField"`
}

func (o *semObj) DeepCopyObject() runtime.Object { c := *o; return &c }

type semObjList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []semObj `json:"items"`
}

func (l *semObjList) DeepCopyObject() runtime.Object { c := *l; return &c }

var semGVK = schema.GroupVersionKind{Group: "test.wire", Version: "v1", Kind: "SemObj"}

func semType() *apiType {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(semGVK, &semObj{})
	scheme.AddKnownTypeWithName(semGVK.GroupVersion().WithKind("SemObjList"), &semObjList{})
	metav1.AddToGroupVersion(scheme, semGVK.GroupVersion())
	return &apiType{
		gvk: semGVK, elem: reflect.TypeFor[semObj](), listElem: reflect.TypeFor[semObjList](),
		ref: newReference(scheme, semGVK.GroupVersion()), codec: newTestJSONCodec[runtime.Object](reflect.TypeFor[semObj](), semGVK),
	}
}

// semValues holds a non-null value for each field of semObj.
var semValues = map[string]string{
	"str": `"s"`, "int": `7`, "int64": `-7`, "pint64": `8`, "uint8": `255`, "bool": `true`, "float": `1.5`,
	"strs": `["a","b"]`, "map": `{"a":"1"}`, "any": `{"a":[1,2.5,"x",null,true]}`, "anyMap": `{"a":1}`,
	"bytes": `"aGVsbG8="`, "data": `{"k":"aGVsbG8="}`, "arr": `[1,2]`,
	"time": `"2020-01-02T03:04:05Z"`, "ptime": `"2020-01-02T03:04:05+02:00"`, "micro": `"2020-01-02T03:04:05.123456Z"`,
	"dur": `"1m30s"`, "pdur": `"2h"`, "qty": `"1.5Gi"`, "pqty": `"100m"`, "qtys": `{"cpu":"2","memory":"1Mi"}`,
	"ios": `"50%"`, "pios": `5`, "raw": `{"b": [1, 2 ] }`, "fields": `{"f:metadata":{"f:name":{}}}`,
	"u": `{"apiVersion":"v1","kind":"X","spec":{"n":1}}`, "ul": `[{"apiVersion":"v1","kind":"X"}]`,
	"nested": `{"a":"1","m":{"x":"y"}}`, "pnested": `{"b":"2"}`, "nesteds": `[{"a":"1"},{"b":"2"}]`,
	"mapNested": `{"k":{"a":"1"}}`, "strNum": `"12"`, "with-dash": `"d"`, "NoTag": `"n"`, "Inline": `{"a":"i"}`,
	"embeddedField": `"e"`, "ptrField": `"p"`, "metadata": `{"name":"n","namespace":"ns","labels":{"a":"b"}}`,
	"kind": `"SemObj"`, "apiVersion": `"test.wire/v1"`,
}

type semCase struct {
	name string
	obj  string // the object's JSON
	// wantErr is whether client-go fails on it: checked, so the table says
	// what apimachinery does.
	wantErr bool
	// lost is whether the error loses the watch stream's framing (a syntax
	// error), so that our WATCH decoder cannot go on after it.
	lost bool
}

func semCases() []semCase {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	cases := []semCase{
		{"empty", `{}`, false, false},
		{"case-sensitive names", `{"STR":"x","Str":"y","str":"z","Metadata":{"name":"M"},"metadata":{"Name":"x","name":"n"}}`, false, false},
		{"unknown fields", `{"zzz":1,"metadata":{"zzz":{"a":[1,2]}},"nested":{"q":[{}]}}`, false, false},
		{"escaped names", `{"\u0073tr":"x","metadata":{"n\u0061me":"esc"}}`, false, false},
		{"duplicate scalar", `{"str":"a","str":"b","int":1,"int":2}`, false, false},
		{"duplicate struct merges", `{"nested":{"a":"1"},"nested":{"b":"2"}}`, false, false},
		{"duplicate pointer struct merges", `{"pnested":{"a":"1"},"pnested":{"b":"2"}}`, false, false},
		{"duplicate map merges", `{"map":{"a":"1"},"map":{"b":"2"},"metadata":{"labels":{"a":"1","a":"2"}}}`, false, false},
		{"duplicate map of structs replaces", `{"mapNested":{"k":{"a":"1"}},"mapNested":{"k":{"b":"2"}}}`, false, false},
		{"duplicate slice replaces", `{"strs":["a","b"],"strs":["c"],"nesteds":[{"a":"1"},{"b":"2"}],"nesteds":[{"m":{"x":"y"}}]}`, false, false},
		{"duplicate array", `{"arr":[1,2],"arr":[3]}`, false, false},
		{"duplicate any", `{"any":{"a":1},"any":[1],"anyMap":{"a":1},"anyMap":{"b":2}}`, false, false},
		{"duplicate then null", `{"time":"2020-01-01T00:00:00Z","time":null,"qty":"1","qty":null,"ios":"a","ios":null,"str":"a","str":null}`, false, false},
		{"duplicate metadata merges", `{"metadata":{"name":"a"},"metadata":{"namespace":"b"}}`, false, false},
		{"invalid UTF-8", "{\"str\":\"a\xffb\",\"map\":{\"k\xfe\":\"v\xc3\"},\"any\":\"\xed\xa0\x80\",\"metadata\":{\"name\":\"n\xff\"}}", false, false},
		{"lone surrogates", `{"str":"\ud800x","any":["\udc00"],"map":{"\ud83d":"\ude00"}}`, false, false},
		{"escapes", `{"str":"\u00e9\ud83d\ude00\n\t\"\\\/","NoTag":"\u0000"}`, false, false},
		{"int64 limits", `{"int64":9223372036854775807,"pint64":-9223372036854775808}`, false, false},
		{"int64 overflow", `{"int64":9223372036854775808}`, true, false},
		{"uint8 overflow", `{"uint8":256}`, true, false},
		{"negative uint", `{"uint8":-1}`, true, false},
		{"fraction in int", `{"int":1.5}`, true, false},
		{"exponent in int", `{"int":1e2}`, true, false},
		{"float overflow", `{"float":1e400}`, true, false},
		{"any numbers", `{"any":[9007199254740993,12345678901234567890,1.0,1e3,-0,0.5,-9223372036854775808]}`, false, false},
		{"any map numbers", `{"anyMap":{"a":9223372036854775807,"b":9223372036854775808,"c":{"d":[1]}}}`, false, false},
		{"any float overflow", `{"any":1e400}`, true, false},
		{"time formats", `{"time":"2020-01-02T03:04:05+02:00","micro":"2020-01-02T03:04:05.000001-07:00"}`, false, false},
		{"micro time without fraction", `{"micro":"2020-01-02T03:04:05Z"}`, true, false},
		{"time empty string", `{"ptime":""}`, true, false},
		{"time garbage", `{"time":"yesterday"}`, true, false},
		{"time number", `{"time":5}`, true, false},
		{"duration garbage", `{"dur":"x"}`, true, false},
		{"duration number", `{"dur":60}`, true, false},
		{"quantity forms", `{"qty":1,"pqty":1.5,"qtys":{"a":"-0","b":"1e3","c":"0.1"}}`, false, false},
		{"quantity garbage", `{"qty":"abc"}`, true, false},
		{"quantity bool", `{"qty":true}`, true, false},
		{"int-or-string forms", `{"ios":5,"pios":"5"}`, false, false},
		{"int-or-string bool", `{"ios":true}`, true, false},
		{"int-or-string float", `{"ios":1.5}`, true, false},
		{"raw forms", `{"raw":[1, 2 ]}`, false, false},
		{"raw string", `{"raw":"s"}`, false, false},
		{"fields null", `{"fields":null}`, false, false},
		{"unstructured without kind", `{"u":{"a":1}}`, true, false},
		{"unstructured list", `{"ul":[{"apiVersion":"v1","kind":"X","a":{"b":[1,2.5]}}]}`, false, false},
		{"bytes with newline", `{"bytes":"aGVs\nbG8="}`, false, false},
		{"bytes without padding", `{"bytes":"aGVsbG8"}`, true, false},
		{"bytes from array", `{"bytes":[1,2]}`, false, false},
		{"bytes garbage", `{"bytes":"!!!"}`, true, false},
		{"secret data garbage", `{"data":{"k":"!!!"}}`, true, false},
		{"string tag number", `{"strNum":12}`, true, false},
		{"string tag garbage", `{"strNum":"x"}`, true, false},
		{"ignored and unexported", `{"-":"x","Ignored":"y","unexported":"z"}`, false, false},
		{"embedded", `{"embeddedField":"e","ptrField":"p","SemEmbedded":{"embeddedField":"q"}}`, false, false},
		{"inline tag on a named field", `{"Inline":{"a":"1"},"a":"2"}`, false, false},
		{"wrong type string", `{"str":5}`, true, false},
		{"wrong type slice", `{"strs":"a"}`, true, false},
		{"wrong type map", `{"map":[]}`, true, false},
		{"wrong type struct", `{"nested":"x"}`, true, false},
		{"wrong type metadata", `{"metadata":"x"}`, true, false},
		{"wrong type label", `{"metadata":{"labels":{"a":1}}}`, true, false},
		{"wrong type array", `{"arr":{}}`, true, false},
		{"wrong type bool", `{"bool":"true"}`, true, false},
		{"array too long", `{"arr":[1,2,3]}`, false, false},
		{"deep nesting ok", `{"any":` + deep(9990) + `}`, false, false},
		{"deep nesting too deep", `{"any":` + deep(10001) + `}`, true, true},
		{"deep nesting in unknown field", `{"zzz":` + deep(10001) + `}`, true, true},
		{"huge string", `{"str":"` + strings.Repeat("x", 1<<20) + `","metadata":{"annotations":{"a":"` + strings.Repeat("é", 1<<18) + `"}}}`, false, false},
		{"typemeta matches", `{"kind":"SemObj","apiVersion":"test.wire/v1"}`, false, false},
		{"kind of wrong type", `{"kind":5}`, true, false},
		{"whitespace", " { \"str\" :\t\"a\" ,\r\n\"int\" : 1 } ", false, false},
		// map[string]string and metav1.Time/MicroTime have our own
		// unmarshalers (json_fast.go): their edges.
		{"map null values", `{"map":{"a":null,"b":"x","b":null},"metadata":{"labels":{"":""}}}`, false, false},
		{"map empty", `{"map":{},"metadata":{"labels":{},"annotations":null}}`, false, false},
		{"map escapes after non-ASCII", `{"map":{"é\u0041":"ü\n","\u00e9":"a\"b","ß":"\ud83d\ude00"}}`, false, false},
		{"map invalid UTF-8 after ASCII", "{\"map\":{\"abc\xff\":\"abcdefghij\xc3\",\"k\":\"\xed\xa0\x80\"}}", false, false},
		{"map long strings", `{"map":{"` + strings.Repeat("k", 300) + `":"` + strings.Repeat("v", 65) + `","k8":"12345678","k9":"123456789"}}`, false, false},
		{"map duplicate then null", `{"map":{"a":"1"},"map":null,"metadata":{"labels":{"a":"1"},"labels":null}}`, false, false},
		{"map null then value", `{"map":null,"map":{"a":"1"}}`, false, false},
		{"map value object", `{"map":{"a":{}}}`, true, false},
		{"map value array", `{"map":{"a":["x"]}}`, true, false},
		{"map value bool", `{"map":{"a":true}}`, true, false},
		{"map string", `{"map":"x"}`, true, false},
		{"map number", `{"metadata":{"labels":5}}`, true, false},
		{"map bool", `{"metadata":{"annotations":false}}`, true, false},
		{"map whitespace", "{\"map\" : { \"a\" :\t\"1\" ,\n\"b\"\r: null , \"c\":\"\" }\n,\"metadata\":{\"labels\":{ }}}", false, false},
		{"map backslashes and quotes", `{"map":{"a\\":"\\","\"":"\\\"","\\\\\"x":"\u0022\\u0022","q\/":"\/"}}`, false, false},
		{"map value number", `{"map":{"a":"1","b":2}}`, true, false},
		{"map value after null", `{"map":{"a":null,"b":false}}`, true, false},
		{"map long repeated strings", `{"map":{"` + strings.Repeat("k", 200) + `":"` + strings.Repeat("v", 256) + `","b":"` + strings.Repeat("v", 257) + `"},"nested":{"m":{"` + strings.Repeat("k", 200) + `":"` + strings.Repeat("v", 256) + `"}}}`, false, false},
		{"fields forms", `{"fields":{ "f:a" : [1, {}] ,"f:b":"x"},"metadata":{"managedFields":[{"fieldsV1":null},{"fieldsV1":"s"},{"fieldsV1":[1]},{"fieldsV1":5},{"fieldsV1":{}}]}}`, false, false},
		{"fields duplicate", `{"fields":{"a":1},"fields":{"b":2},"metadata":{"managedFields":[{"fieldsV1":{"a":1},"fieldsV1":null}]}}`, false, false},
		{"fields garbage", `{"fields":{"a":}}`, true, true},
		{"quantity edges", `{"qty":"1Ki","pqty":"1e3","qtys":{"a":"0.1","b":".5","c":"-1","d":"1E3","e":"+1","f":" 2 ","g":"1Mi","h":"1Mi","i":"100m","j":"9223372036854775807","k":"9223372036854775808Ei","l":"` + "1" + strings.Repeat("0", 300) + `"}}`, false, false},
		{"quantity unquoted forms", `{"qty":1e3,"pqty":-0.5,"qtys":{"a":0,"b":12345678901234567890}}`, false, false},
		{"quantity null forms", `{"qty":null,"pqty":null,"qtys":{"a":null}}`, false, false},
		{"quantity quoted null", `{"qty":"null"}`, true, false},
		{"quantity escaped", `{"qty":"\u0031"}`, true, false},
		{"quantity empty", `{"qtys":{"a":""}}`, true, false},
		{"quantity object", `{"pqty":{}}`, true, false},
		{"quantity array", `{"qty":["1"]}`, true, false},
		{"quantity duplicate", `{"qty":"1","qty":"2Gi","pqty":"3","pqty":null}`, false, false},
		{"map in nested", `{"nested":{"m":{"x":"y","x":"z"}},"mapNested":{"k":{"m":{"a":null}}}}`, false, false},
		{"time escaped", `{"time":"2020-01-02T03:04:05\u005a","micro":"\u0032020-01-02T03:04:05.000001Z"}`, false, false},
		{"time fraction", `{"time":"2020-01-02T03:04:05.999999999+01:00","ptime":"2020-01-02T03:04:05.5Z"}`, false, false},
		{"time lowercase", `{"time":"2020-01-02t03:04:05z"}`, true, false},
		{"time non-ASCII", `{"time":"2020-01-02T03:04:05Zé"}`, true, false},
		{"time invalid UTF-8", "{\"time\":\"2020-01-02T03:04:05\xffZ\"}", true, false},
		{"time object", `{"ptime":{"a":"2020-01-02T03:04:05Z"}}`, true, false},
		{"time array", `{"time":["2020-01-02T03:04:05Z"]}`, true, false},
		{"time bool", `{"micro":true}`, true, false},
		{"micro number", `{"micro":1}`, true, false},
		{"micro garbage", `{"micro":"2020-01-02 03:04:05.000000Z"}`, true, false},
		{"time leap and range", `{"time":"2020-02-30T03:04:05Z"}`, true, false},
		{"time year 0 and 9999", `{"time":"0000-01-01T00:00:00Z","ptime":"9999-12-31T23:59:59-23:59"}`, false, false},
		{"time in metadata", `{"metadata":{"creationTimestamp":"2020-01-02T03:04:05Z","deletionTimestamp":null,"managedFields":[{"time":"2020-01-02T03:04:05+05:30"}]}}`, false, false},
	}
	for _, name := range sortedKeys(semValues) {
		if name == "kind" || name == "apiVersion" {
			continue
		}
		cases = append(cases,
			// metav1.Duration's UnmarshalJSON parses null as "": an error.
			semCase{"null " + name, fmt.Sprintf(`{%q:null}`, name), name == "dur", false},
			semCase{"value then null " + name, fmt.Sprintf(`{%q:%s,%[1]q:null}`, name, semValues[name]), name == "dur", false},
			semCase{"value " + name, fmt.Sprintf(`{%q:%s}`, name, semValues[name]), false, false})
	}
	var all []string
	for _, name := range sortedKeys(semValues) {
		all = append(all, fmt.Sprintf("%q:%s", name, semValues[name]))
	}
	cases = append(cases, semCase{"every field", "{" + strings.Join(all, ",") + "}", false, false})
	return cases
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestJSONSemanticsMatchClientGo decodes each case as the one item of a LIST
// and as the object of a WATCH event, by our codec and by client-go's
// decoders, and requires the same Go value, or an error from both.
func TestJSONSemanticsMatchClientGo(t *testing.T) {
	a := semType()
	for _, c := range semCases() {
		t.Run(c.name, func(t *testing.T) {
			list := `{"apiVersion":"test.wire/v1","kind":"SemObjList","metadata":{"resourceVersion":"9"},"items":[` + c.obj + `]}`
			d, ourErr, refErr := compareList(a, []byte(list))
			if d != "" {
				t.Fatalf("LIST: %s\nours: %v\nclient-go: %v", d, ourErr, refErr)
			}
			if (refErr != nil) != c.wantErr {
				t.Fatalf("LIST: client-go error %v, the table says error=%v", refErr, c.wantErr)
			}
			obj := strings.TrimSpace(c.obj)
			withKind := `{"apiVersion":"test.wire/v1","kind":"SemObj"` + strings.TrimPrefix(strings.TrimPrefix(obj, "{"), " ")
			if !strings.HasPrefix(strings.TrimSpace(withKind[len(`{"apiVersion":"test.wire/v1","kind":"SemObj"`):]), "}") {
				withKind = `{"apiVersion":"test.wire/v1","kind":"SemObj",` + obj[1:]
			}
			body := `{"type":"ADDED","object":` + withKind + "}\n" + `{"type":"DELETED","object":{"apiVersion":"test.wire/v1","kind":"SemObj","metadata":{"name":"after"}}}`
			d, ourErr, refErr = compareWatch(a, []byte(body))
			if d != "" {
				t.Fatalf("WATCH: %s\nours: %v\nclient-go: %v", d, ourErr, refErr)
			}
			if (refErr != nil) != c.wantErr {
				t.Fatalf("WATCH: client-go error %v, the table says error=%v", refErr, c.wantErr)
			}
			if c.wantErr {
				var de *DecodeError
				if !errors.As(ourErr, &de) || de.Recoverable == c.lost {
					t.Fatalf("WATCH: our error %v is not a *DecodeError with Recoverable=%v", ourErr, !c.lost)
				}
			}
		})
	}
}
