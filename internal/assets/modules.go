package assets

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// A page's ES modules import each other by relative specifiers ('./api.js'). Each import is
// rewritten at start-up to the module's checksummed address ('./api.js?v=<checksum>'), so that
// a module is cached for a year like any file of the set, and a change to one module changes
// the address of every module that imports it, up to the one the page names.
//
// The alternative, an import map written into the page, is an inline script: the page's
// Content-Security-Policy (script-src 'self') would need its hash, and the map would grow with
// every module. Rewriting keeps the policy as it is, at the cost of one rule: modules import
// each other without a circle, since a module's checksum covers those of what it imports.

// importRe finds a module's static imports, at the start of a line as the page's modules write
// them: `import … from '…'`, `import '…'`, `export … from '…'`. Group 1 is the specifier.
var importRe = regexp.MustCompile(`(?m)^[ \t]*(?:import\s*(?:[\w$]+\s*,?\s*)?(?:\*\s*as\s+[\w$]+|\{[^}]*\})?\s*from|import|export\s*(?:\*(?:\s*as\s+[\w$]+)?|\{[^}]*\})\s*from)\s*['"]([^'"\n]*)['"]`)

// isScript tells a file that may be a module.
func isScript(name string) bool { return path.Ext(name) == ".js" }

// imports are the specifiers a script imports, in order, with where each is in its source.
func imports(src []byte) (specs []string, at [][2]int) {
	for _, m := range importRe.FindAllSubmatchIndex(src, -1) {
		specs = append(specs, string(src[m[2]:m[3]]))
		at = append(at, [2]int{m[2], m[3]})
	}
	return specs, at
}

// addModules adds the set's scripts, each after those it imports, with its imports rewritten.
func (s *Set) addModules(files map[string][]byte) error {
	var names []string
	for n := range files {
		if isScript(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names) // the same error first on every start
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var add func(name string, chain []string) error
	add = func(name string, chain []string) error {
		switch state[name] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("assets: modules import each other in a circle: %s", strings.Join(append(chain, name), " → "))
		}
		state[name] = visiting
		src := files[name]
		specs, at := imports(src)
		var out []byte
		last := 0
		for i, spec := range specs {
			dep, ok := strings.CutPrefix(spec, "./")
			if !ok || strings.Contains(dep, "/") || !isScript(dep) || files[dep] == nil {
				return fmt.Errorf("assets: %s imports %q, which is not a module of its set (write './name.js')", name, spec)
			}
			if err := add(dep, append(chain[:len(chain):len(chain)], name)); err != nil {
				return err
			}
			out = append(out, src[last:at[i][0]]...)
			out = append(out, spec+"?v="+s.files[dep].ETag...)
			last = at[i][1]
		}
		if specs != nil {
			src = append(out, src[last:]...)
		}
		s.files[name] = NewFile(name, src)
		state[name] = done
		return nil
	}
	for _, n := range names {
		if err := add(n, nil); err != nil {
			return err
		}
	}
	return nil
}
