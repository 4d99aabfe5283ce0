package generator

import (
	"go/scanner"
	"go/token"
)

// blankFuncBodies returns src with the contents of every function body
// replaced by spaces (newlines kept, so every position stays where it was).
// The parser then spends nothing on statements the generator never reads:
// they were most of the time of parsing dependencies from source.
//
// A body is the brace block that follows a func keyword's signature: the
// first '{' outside parentheses and brackets that does not open a struct or
// interface type literal. Function literals in initializers are blanked too;
// their bodies are as irrelevant as any other. When the source does not
// scan, it is returned unchanged, for the parser to report.
func blankFuncBodies(src []byte) []byte {
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	bad := false
	s.Init(file, src, func(token.Position, string) { bad = true }, 0)
	out := []byte(nil)
	var (
		inSig    bool // after func, before its body
		depth    int  // ( and [ nesting inside the signature
		typeLit  int  // brace nesting of struct{...} / interface{...} in the signature
		prev     token.Token
		bodyFrom = -1 // offset just after the body's '{'
		braces   int  // nesting inside the body being blanked
	)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		switch {
		case bodyFrom >= 0:
			switch tok {
			case token.LBRACE:
				braces++
			case token.RBRACE:
				braces--
				if braces == 0 {
					if out == nil {
						out = append([]byte(nil), src...)
					}
					for i := bodyFrom; i < off; i++ {
						if out[i] != '\n' {
							out[i] = ' '
						}
					}
					bodyFrom = -1
				}
			}
		case inSig:
			switch tok {
			case token.LPAREN, token.LBRACK:
				depth++
			case token.RPAREN, token.RBRACK:
				depth--
			case token.LBRACE:
				switch {
				case typeLit > 0 || prev == token.STRUCT || prev == token.INTERFACE:
					typeLit++
				case depth == 0:
					inSig, bodyFrom, braces = false, off+1, 1
				}
			case token.RBRACE:
				if typeLit > 0 {
					typeLit--
				}
			case token.SEMICOLON:
				if depth == 0 && typeLit == 0 { // a declaration without body
					inSig = false
				}
			}
		case tok == token.FUNC:
			inSig, depth, typeLit = true, 0, 0
		}
		prev = tok
	}
	if bad || bodyFrom >= 0 || out == nil {
		return src
	}
	return out
}
