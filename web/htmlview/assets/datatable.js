// The data table page: reads the data-table JSON API of its own origin
// (the session cookie authenticates) and shows one page of rows. Column
// headings sort (ascending, then descending), the filter box takes CQL2,
// the field picker chooses the columns, Previous and Next page, and the
// CSV link downloads the current view.
(function () {
  "use strict";
  var root = document.getElementById("datatable");
  var api = root.dataset.api;
  var limit = root.dataset.limit || "25";
  var form = document.getElementById("view");
  var status = document.getElementById("status");
  var errorBox = document.getElementById("error");
  var headRow = document.querySelector("#rows thead tr");
  var body = document.querySelector("#rows tbody");
  var prev = document.getElementById("prev");
  var next = document.getElementById("next");
  var csv = document.getElementById("csv");
  var state = { sort: null, desc: false, filter: "" };
  var history = []; // the URLs of the pages before the current one
  var current = null, nextURL = null;

  function fields() {
    var out = [];
    form.querySelectorAll("input[name=field]").forEach(function (b) {
      if (b.checked) out.push(b.value);
    });
    return out;
  }

  function firstPage() {
    var q = new URLSearchParams();
    q.set("limit", limit);
    var fs = fields();
    if (fs.length) q.set("fields", fs.join(","));
    if (state.sort) q.set("sort", (state.desc ? "-" : "") + state.sort);
    if (state.filter) q.set("filter", state.filter);
    return api + "/rows?" + q.toString();
  }

  function show(doc) {
    errorBox.hidden = true;
    headRow.textContent = "";
    var th = document.createElement("th");
    th.scope = "col";
    th.textContent = "fid";
    headRow.appendChild(th);
    doc.fields.forEach(function (f) {
      var th = document.createElement("th");
      th.scope = "col";
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = f;
      b.dataset.field = f;
      if (state.sort === f) {
        th.setAttribute("aria-sort", state.desc ? "descending" : "ascending");
        b.textContent = f + (state.desc ? " ▼" : " ▲");
      }
      b.addEventListener("click", function () { sortBy(f); });
      th.appendChild(b);
      headRow.appendChild(th);
    });
    body.textContent = "";
    doc.rows.forEach(function (r) {
      var tr = document.createElement("tr");
      var td = document.createElement("td");
      td.textContent = String(r.fid);
      tr.appendChild(td);
      doc.fields.forEach(function (f) {
        var td = document.createElement("td");
        var v = r.properties[f];
        td.textContent = v === null || v === undefined ? "" : (typeof v === "object" ? JSON.stringify(v) : String(v));
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    var first = doc.offset !== undefined ? doc.offset : countBefore();
    status.textContent = doc.returned === 0 ? "No rows match." :
      "Rows " + (first + 1) + "–" + (first + doc.returned) + " of " + doc.matched + ".";
    nextURL = local(doc.links.next);
    next.disabled = !nextURL;
    prev.disabled = history.length === 0;
    csv.href = local(doc.links.csv);
  }

  // local is a link of the API on this page's origin (the API names the
  // site's public origin, which may differ behind a proxy).
  function local(u) {
    if (!u) return null;
    var x = new URL(u, location.href);
    return x.pathname + x.search;
  }

  // rowsBefore counts the rows of the pages before a keyset page.
  var rowsBefore = [];
  function countBefore() {
    return rowsBefore.reduce(function (a, b) { return a + b; }, 0);
  }

  function load(url, push) {
    status.textContent = "Loading…";
    return fetch(url, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
      .then(function (resp) {
        return resp.json().then(function (doc) {
          if (!resp.ok) throw new Error(doc.detail || ("HTTP " + resp.status));
          return doc;
        });
      })
      .then(function (doc) {
        if (push === "next") { history.push(current); rowsBefore.push(lastReturned); }
        if (push === "prev") { rowsBefore.pop(); }
        if (push === "first") { history = []; rowsBefore = []; }
        current = url;
        lastReturned = doc.returned;
        show(doc);
        root.dataset.state = "ready";
      })
      .catch(function (e) {
        errorBox.textContent = e.message;
        errorBox.hidden = false;
        status.textContent = "";
        root.dataset.state = "error";
      });
  }
  var lastReturned = 0;

  function sortBy(f) {
    if (state.sort === f) {
      state.desc = !state.desc;
    } else {
      state.sort = f;
      state.desc = false;
    }
    load(firstPage(), "first");
  }

  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    state.filter = document.getElementById("filter").value.trim();
    load(firstPage(), "first");
  });
  form.querySelectorAll("input[name=field]").forEach(function (b) {
    b.addEventListener("change", function () { load(firstPage(), "first"); });
  });
  next.addEventListener("click", function () { if (nextURL) load(nextURL, "next"); });
  prev.addEventListener("click", function () {
    if (history.length) { var u = history.pop(); load(u, "prev"); }
  });
  load(firstPage(), "first");
})();
