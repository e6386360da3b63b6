package rest

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/audit"
)

// The audit log (internal/audit), read-only:
//
//	GET /audit/?actor={user id}&target_type=&target_id=&action=&from=&to=&after={cursor}&page_size={n}
//	GET /audit.csv?... (or /audit/ with Accept: text/csv)
//
// Entries come newest first; the Link header's page-next carries the
// cursor of the next page. action is exact, or a prefix ending in . or .*;
// from and to are RFC 3339 times (from inclusive, to exclusive). CSV is
// RFC 4180 with a header row, the same page as the JSON. No route
// changes or deletes an entry.
func (a *API) auditRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(scoped(graph.AuditScope, graph.AuditScope))
		r.Get("/audit", a.handle(a.auditList(false)))
		r.Get("/audit.csv", a.handle(a.auditList(true)))
	})
}

// Page size caps: JSON pages as the API's other lists (spec: 200); a CSV
// export may take a bigger page.
const (
	auditMaxJSONPage = 200
	auditMaxCSVPage  = audit.MaxPageSize
)

// auditEntryJSON is the REST shape of an entry.
type auditEntryJSON struct {
	ID         int             `json:"id"`
	CreatedAt  time.Time       `json:"created_at"`
	Actor      auditActorJSON  `json:"actor"`
	Action     string          `json:"action"`
	Target     auditTargetJSON `json:"target"`
	Before     map[string]any  `json:"before"`
	After      map[string]any  `json:"after"`
	ClientAddr string          `json:"client_addr"`
	GroupIDs   []int           `json:"group_ids"`
}

type auditActorJSON struct {
	Kind      string `json:"kind"`
	UserID    *int   `json:"user_id"`
	Label     string `json:"label"`
	SessionID *int   `json:"session_id"`
	TokenID   *int   `json:"token_id"`
}

type auditTargetJSON struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Label string `json:"label"`
}

func auditJSON(e *audit.Logged) auditEntryJSON {
	return auditEntryJSON{ID: e.ID, CreatedAt: e.CreatedAt,
		Actor: auditActorJSON{Kind: e.Actor.Kind, UserID: e.Actor.UserID, Label: e.Actor.Label,
			SessionID: e.Actor.SessionID, TokenID: e.Actor.TokenID},
		Action: e.Action, Target: auditTargetJSON{Type: e.Target.Type, ID: e.Target.ID, Label: e.Target.Label},
		Before: e.Before, After: e.After, ClientAddr: e.ClientAddr, GroupIDs: e.GroupIDs}
}

// auditFilterParams are the query parameters of the list's filter.
var auditFilterParams = []string{"actor", "target_type", "target_id", "action", "from", "to"}

func auditFilterOf(r *http.Request) (audit.Filter, error) {
	q := queryOf(r)
	var f audit.Filter
	var err error
	if f.ActorUserID, err = q.intPtr("actor"); err != nil {
		return f, err
	}
	v := r.URL.Query()
	f.TargetType, f.TargetID, f.Action = v.Get("target_type"), v.Get("target_id"), v.Get("action")
	for _, p := range []struct {
		name string
		dst  **time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		s := v.Get(p.name)
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return f, apperr.Field(p.name, fmt.Sprintf("%q is not an RFC 3339 time such as 2026-01-31T12:00:00Z.", s))
		}
		*p.dst = &t
	}
	return f, nil
}

// wantsCSV reports whether the request asks for CSV by its Accept header.
func wantsCSV(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(mt), "text/csv") {
			return true
		}
	}
	return false
}

func (a *API) auditList(csvPath bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		f, err := auditFilterOf(r)
		if err != nil {
			return err
		}
		size, err := queryOf(r).intPtr("page_size")
		if err != nil {
			return err
		}
		asCSV := csvPath || wantsCSV(r)
		most := auditMaxJSONPage
		if asCSV {
			most = auditMaxCSVPage
		}
		per := audit.DefaultPageSize
		if size != nil {
			if *size < 1 || *size > most {
				return apperr.Field("page_size", fmt.Sprintf("Give a page size from 1 to %d.", most))
			}
			per = *size
		}
		page, err := a.res.AuditPage(r.Context(), f, r.URL.Query().Get("after"), per)
		if err != nil {
			return err
		}
		carried := url.Values{}
		for _, k := range auditFilterParams {
			if v := r.URL.Query().Get(k); v != "" {
				carried.Set(k, v)
			}
		}
		if size != nil {
			carried.Set("page_size", strconv.Itoa(per))
		}
		a.links(r).setCursorHeaders(w, r, cursorPage{carried: carried, param: "after", next: page.Next,
			per: per, count: len(page.Entries), total: page.Total})
		if asCSV {
			return writeAuditCSV(w, page.Entries)
		}
		items := make([]auditEntryJSON, len(page.Entries))
		for i, e := range page.Entries {
			items[i] = auditJSON(e)
		}
		writeJSON(w, http.StatusOK, items)
		return nil
	}
}

// auditCSVHeader names the CSV columns.
var auditCSVHeader = []string{"id", "created_at", "actor_kind", "actor_user_id", "actor_label", "actor_session_id",
	"actor_token_id", "action", "target_type", "target_id", "target_label", "before", "after", "client_addr", "group_ids"}

// writeAuditCSV writes entries as RFC 4180 CSV (CRLF line ends, a header
// row); before and after are JSON, group ids space-separated.
func writeAuditCSV(w http.ResponseWriter, entries []*audit.Logged) error {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8; header=present")
	w.Header().Set("Content-Disposition", `attachment; filename="audit.csv"`)
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(auditCSVHeader); err != nil {
		return nil // the client went away; the status is sent
	}
	for _, e := range entries {
		groups := make([]string, len(e.GroupIDs))
		for i, g := range e.GroupIDs {
			groups[i] = strconv.Itoa(g)
		}
		row := []string{strconv.Itoa(e.ID), e.CreatedAt.Format(time.RFC3339Nano), e.Actor.Kind, optInt(e.Actor.UserID),
			e.Actor.Label, optInt(e.Actor.SessionID), optInt(e.Actor.TokenID), e.Action, e.Target.Type, e.Target.ID,
			e.Target.Label, jsonCell(e.Before), jsonCell(e.After), e.ClientAddr, strings.Join(groups, " ")}
		if err := cw.Write(row); err != nil {
			return nil
		}
	}
	cw.Flush()
	return nil
}

func optInt(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func jsonCell(m map[string]any) string {
	if m == nil {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(b)
}
