package admin

// Money writes cents as the pages do, for the tests outside the package.
var Money = money
