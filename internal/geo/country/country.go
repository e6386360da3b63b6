// Package country validates ISO 3166-1 alpha-2 country codes.
package country

import (
	"sort"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/geopub/geopub/internal/apperr"
)

// codes are the officially assigned ISO 3166-1 alpha-2 codes.
const codes = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
	"CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR " +
	"GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP " +
	"KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT " +
	"MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW " +
	"SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG " +
	"UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW"

var known = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(codes) {
		m[c] = true
	}
	return m
}()

// Valid reports whether code (any case) is an assigned alpha-2 code.
func Valid(code string) bool { return known[strings.ToUpper(code)] }

// Normalize upper-cases a code and checks it. An empty code is allowed
// unless required.
func Normalize(code string, required bool) (string, error) {
	code = strings.ToUpper(strings.TrimSpace(code))
	if code == "" {
		if required {
			return "", apperr.Field("country", "This field is required.")
		}
		return "", nil
	}
	if !known[code] {
		return "", apperr.Field("country", "\""+code+"\" is not an ISO 3166-1 alpha-2 country code.")
	}
	return code, nil
}

// Choice is a country as a list of choices shows it.
type Choice struct {
	Value       string `json:"value"`
	DisplayName string `json:"display_name"`
}

// Choices lists every assigned code with its English name, by name.
func Choices() []Choice {
	names := display.English.Regions()
	out := make([]Choice, 0, len(known))
	for _, c := range strings.Fields(codes) {
		name := c
		if r, err := language.ParseRegion(c); err == nil {
			if n := names.Name(r); n != "" {
				name = n
			}
		}
		out = append(out, Choice{Value: c, DisplayName: name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].DisplayName < out[j].DisplayName })
	return out
}
