package exportfile

import (
	"os"
	"strings"
)

// FlatGeobuf writes features to a temporary file and, when the dataset
// closes, sorts them into the indexed file: work that grows with the
// features written, also on cancel. abandonTemp puts a folder where that
// file goes, so the close of a cancelled export fails as it starts
// writing instead of building an index nobody will use. The caller
// removes the work folder, and the placeholder with it.
func abandonTemp(datasetPath string) {
	if strings.HasSuffix(datasetPath, ".fgb") {
		_ = os.Mkdir(datasetPath, 0o700)
	}
}
