package browsertest

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// docsJS opens GraphiQL's Documentation Explorer and follows the root
// query type. Each evaluation takes one step and reports where it is:
// {error} when the explorer could not load the schema, {fields} once the
// query type's fields are listed, or {} while still on the way.
const docsJS = `(() => {
	const explorer = document.querySelector(".graphiql-doc-explorer");
	if (!explorer) {
		const open = [...document.querySelectorAll(".graphiql-sidebar button")]
			.find(b => (b.getAttribute("aria-label") || "").includes("Documentation Explorer"));
		if (open) open.click();
		return {};
	}
	const error = explorer.querySelector(".graphiql-doc-explorer-error");
	if (error) return {error: error.innerText};
	const fields = [...explorer.querySelectorAll(".graphiql-doc-explorer-field-name")].map(a => a.innerText);
	const title = explorer.querySelector(".graphiql-doc-explorer-title");
	if (fields.length && title && title.innerText.trim() === "Query") return {fields};
	const root = [...explorer.querySelectorAll(".graphiql-doc-explorer-root-type")]
		.find(s => s.innerText.trim() === "query");
	const link = root && root.parentElement.querySelector(".graphiql-doc-explorer-type-name");
	if (link) link.click();
	return {};
})()`

type docsState struct {
	Error  string   `json:"error"`
	Fields []string `json:"fields"`
}

// GraphiQLQueryFields opens the GraphiQL page at pageURL, opens its
// Documentation Explorer (Docs), follows the root query type and returns
// the field names the explorer lists for it: proof that GraphiQL's
// introspection query succeeded and its schema reached the Docs pane. It
// fails the test when the explorer reports an error fetching the schema,
// or on a timeout, with the page's console errors and failed requests.
func GraphiQLQueryFields(t testing.TB, pageURL string) []string {
	t.Helper()
	ctx, _, fail, _, cancel := openGraphiQL(t, pageURL)
	defer cancel()
	for {
		st, err := chromedp.Run(ctx, chromedp.Evaluate[docsState](docsJS))
		switch {
		case err != nil:
			fail("the Docs pane never listed the query type's fields: %v", err)
		case st.Error != "":
			fail("the Docs pane shows %q", st.Error)
		case len(st.Fields) > 0:
			return st.Fields
		}
		select {
		case <-ctx.Done():
			fail("the Docs pane never listed the query type's fields: %v", ctx.Err())
		case <-time.After(150 * time.Millisecond):
		}
	}
}
