// Starts GraphiQL on the Geopub explorer page. The GraphQL endpoint comes from
// the data-endpoint attribute of #graphiql; the URL parameters query,
// variables and operationName prefill the editors and follow the edits.
(function () {
  "use strict";

  var root = document.getElementById("graphiql");
  var endpoint = root.getAttribute("data-endpoint");
  var params = new URLSearchParams(window.location.search);

  // The CSRF token of the cookie session, which unsafe requests made with
  // the session cookie must repeat in the X-CSRF-Token header.
  function csrfToken() {
    var m = document.cookie.match(/(?:^|;\s*)geopub_csrf=([^;]*)/);
    return m ? decodeURIComponent(m[1]) : "";
  }

  // Same-origin requests only, sending the session cookie and its CSRF token.
  var fetcher = GraphiQL.createFetcher({
    url: endpoint,
    fetch: function (input, init) {
      var opts = Object.assign({}, init, { credentials: "same-origin" });
      var token = csrfToken();
      if (token) {
        opts.headers = Object.assign({}, opts.headers, { "X-CSRF-Token": token });
      }
      return window.fetch(input, opts);
    },
  });

  function remember(name) {
    return function (value) {
      if (value) {
        params.set(name, value);
      } else {
        params.delete(name);
      }
      var search = params.toString();
      window.history.replaceState(null, "", window.location.pathname + (search ? "?" + search : ""));
    };
  }

  var props = {
    fetcher: fetcher,
    onEditQuery: remember("query"),
    onEditVariables: remember("variables"),
    onEditOperationName: remember("operationName"),
  };
  ["query", "variables", "operationName"].forEach(function (name) {
    if (params.has(name)) {
      props[name] = params.get(name);
    }
  });

  ReactDOM.createRoot(root).render(React.createElement(GraphiQL, props));
})();
