// Starts GraphiQL on the Geopub explorer page. The GraphQL endpoint comes from
// the data-endpoint attribute of #graphiql; the URL parameters query,
// variables and operationName prefill the editors and follow the edits.
(function () {
  "use strict";

  var root = document.getElementById("graphiql");
  var endpoint = root.getAttribute("data-endpoint");
  var params = new URLSearchParams(window.location.search);

  // Same-origin requests only, sending the session cookie.
  var fetcher = GraphiQL.createFetcher({
    url: endpoint,
    fetch: function (input, init) {
      return window.fetch(input, Object.assign({}, init, { credentials: "same-origin" }));
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
