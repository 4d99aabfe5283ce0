package fleet

import "strings"

// joinedErrors is errors.Join with its messages on one line, "; "
// separated, for errors that are wrapped again.
type joinedErrors []error

func joined(errs []error) error { return joinedErrors(errs) }

func (e joinedErrors) Error() string {
	msgs := make([]string, len(e))
	for n, err := range e {
		msgs[n] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e joinedErrors) Unwrap() []error { return e }
