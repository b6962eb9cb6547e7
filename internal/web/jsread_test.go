package web

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// What the page's tests read of its modules without a browser: its tokens (enough of JavaScript's
// lexical grammar for the page's own source: comments, strings and template literals with their
// escapes decoded, regular expressions, words and punctuation).

// jsToken is a token of a script: 'w' a word (an identifier, a keyword or a number), 's' the
// text of a string, or of a template literal's part between its expressions, 'p' a punctuation
// mark (one character).
type jsToken struct {
	kind byte
	text string
}

// jsLexer reads tokens from a script.
type jsLexer struct {
	src []rune
	at  int
	out []jsToken
}

// jsTokens splits a script into tokens.
func jsTokens(src string) ([]jsToken, error) {
	l := &jsLexer{src: []rune(src)}
	if err := l.run(false); err != nil {
		return nil, err
	}
	return l.out, nil
}

// run reads tokens up to the end, or inside a template's ${…} (inner) up to its closing brace.
func (l *jsLexer) run(inner bool) error {
	depth := 0
	for l.at < len(l.src) {
		c := l.src[l.at]
		switch {
		case unicode.IsSpace(c):
			l.at++
		case l.peek("//"):
			for l.at < len(l.src) && l.src[l.at] != '\n' {
				l.at++
			}
		case l.peek("/*"):
			end := strings.Index(string(l.src[l.at+2:]), "*/")
			if end < 0 {
				return fmt.Errorf("a comment never closed")
			}
			l.at += 2 + len([]rune(string(l.src[l.at+2:])[:end])) + 2
		case c == '\'' || c == '"':
			s, err := l.quoted(c)
			if err != nil {
				return err
			}
			l.out = append(l.out, jsToken{'s', s})
		case c == '`':
			if err := l.template(); err != nil {
				return err
			}
		case c == '/' && l.regexHere():
			if err := l.regex(); err != nil {
				return err
			}
		case c == '_' || c == '$' || unicode.IsLetter(c) || unicode.IsDigit(c):
			start := l.at
			for l.at < len(l.src) && (l.src[l.at] == '_' || l.src[l.at] == '$' || l.src[l.at] == '.' && unicode.IsDigit(l.src[start]) ||
				unicode.IsLetter(l.src[l.at]) || unicode.IsDigit(l.src[l.at])) {
				l.at++
			}
			l.out = append(l.out, jsToken{'w', string(l.src[start:l.at])})
		default:
			if inner {
				if c == '{' {
					depth++
				} else if c == '}' {
					if depth == 0 {
						l.at++
						return nil
					}
					depth--
				}
			}
			l.out = append(l.out, jsToken{'p', string(c)})
			l.at++
		}
	}
	if inner {
		return fmt.Errorf("a template's ${ never closed")
	}
	return nil
}

func (l *jsLexer) peek(s string) bool {
	return strings.HasPrefix(string(l.src[l.at:min(len(l.src), l.at+len(s))]), s)
}

// regexHere tells a regular expression from a division: it starts where a value is expected.
func (l *jsLexer) regexHere() bool {
	if len(l.out) == 0 {
		return true
	}
	p := l.out[len(l.out)-1]
	switch p.kind {
	case 'p':
		return !strings.Contains(")]}", p.text)
	case 'w':
		switch p.text {
		case "return", "typeof", "case", "in", "of", "new", "delete", "void", "throw":
			return true
		}
	}
	return false
}

func (l *jsLexer) regex() error {
	l.at++
	class := false
	for ; l.at < len(l.src); l.at++ {
		switch c := l.src[l.at]; {
		case c == '\\':
			l.at++
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			l.at++
			for l.at < len(l.src) && unicode.IsLetter(l.src[l.at]) {
				l.at++
			}
			l.out = append(l.out, jsToken{'w', "/regex/"})
			return nil
		case c == '\n':
			return fmt.Errorf("a regular expression never closed")
		}
	}
	return fmt.Errorf("a regular expression never closed")
}

// quoted reads a string in quotes q, its escapes decoded.
func (l *jsLexer) quoted(q rune) (string, error) {
	var b strings.Builder
	for l.at++; l.at < len(l.src); l.at++ {
		switch c := l.src[l.at]; c {
		case q:
			l.at++
			return b.String(), nil
		case '\\':
			if err := l.escape(&b); err != nil {
				return "", err
			}
		case '\n':
			return "", fmt.Errorf("a string never closed")
		default:
			b.WriteRune(c)
		}
	}
	return "", fmt.Errorf("a string never closed")
}

// escape decodes the escape at l.at (a backslash) into b, leaving l.at on its last character.
func (l *jsLexer) escape(b *strings.Builder) error {
	l.at++
	if l.at >= len(l.src) {
		return fmt.Errorf("an escape at the end")
	}
	switch c := l.src[l.at]; c {
	case 'n':
		b.WriteRune('\n')
	case 't':
		b.WriteRune('\t')
	case 'u':
		hex := string(l.src[l.at+1 : min(len(l.src), l.at+5)])
		n, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return fmt.Errorf("a \\u escape %q: %v", hex, err)
		}
		b.WriteRune(rune(n))
		l.at += 4
	case '\n':
	default:
		b.WriteRune(c)
	}
	return nil
}

// template reads a template literal: a string token for each part between its expressions, and
// the expressions' own tokens in between.
func (l *jsLexer) template() error {
	var b strings.Builder
	for l.at++; l.at < len(l.src); l.at++ {
		switch c := l.src[l.at]; {
		case c == '`':
			l.at++
			l.out = append(l.out, jsToken{'s', b.String()})
			return nil
		case c == '\\':
			if err := l.escape(&b); err != nil {
				return err
			}
		case l.peek("${"):
			l.out = append(l.out, jsToken{'s', b.String()}, jsToken{'p', "${"})
			b.Reset()
			l.at += 2
			if err := l.run(true); err != nil {
				return err
			}
			l.out = append(l.out, jsToken{'p', "}$"})
			l.at-- // the loop steps over the brace's place
		default:
			b.WriteRune(c)
		}
	}
	return fmt.Errorf("a template literal never closed")
}
