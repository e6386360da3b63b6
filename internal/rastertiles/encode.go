package rastertiles

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

// jpegBackground is what transparent parts of a JPEG tile show.
var jpegBackground = color.NRGBA{R: 255, G: 255, B: 255, A: 255}

var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// EncodePicture writes a picture of any size (DrawFrame's) as PNG or
// JPEG (transparent parts white).
func EncodePicture(img *image.NRGBA, f Format) ([]byte, error) {
	if f == WebP {
		return nil, fmt.Errorf("rastertiles: pictures are PNG or JPEG")
	}
	return encode(img, f)
}

// encode writes img (nil: a transparent tile) in format f.
func encode(img *image.NRGBA, f Format) ([]byte, error) {
	if img == nil {
		img = image.NewNRGBA(image.Rect(0, 0, Size, Size))
	}
	var b bytes.Buffer
	switch f {
	case PNG:
		if err := pngEncoder.Encode(&b, img); err != nil {
			return nil, err
		}
	case JPEG:
		flat := image.NewRGBA(img.Bounds())
		draw.Draw(flat, flat.Bounds(), image.NewUniform(jpegBackground), image.Point{}, draw.Src)
		draw.Draw(flat, flat.Bounds(), img, image.Point{}, draw.Over)
		if err := jpeg.Encode(&b, flat, &jpeg.Options{Quality: 85}); err != nil {
			return nil, err
		}
	case WebP:
		return encodeWebP(img)
	default:
		return nil, fmt.Errorf("rastertiles: unknown format %q", f)
	}
	return b.Bytes(), nil
}

var webpSeq atomic.Int64

// encodeWebP encodes through GDAL's WEBP driver (lossless, alpha kept):
// Go's image packages only decode WebP.
func encodeWebP(img *image.NRGBA) ([]byte, error) {
	gdal.Init()
	mem, err := godal.Create(godal.Memory, "", 4, godal.Byte, Size, Size)
	if err != nil {
		return nil, err
	}
	defer mem.Close()
	buf := make([]byte, Size*Size)
	for i, b := range mem.Bands() {
		for p := range buf {
			buf[p] = img.Pix[p*4+i]
		}
		if err := b.Write(0, 0, buf, Size, Size); err != nil {
			return nil, err
		}
	}
	name := "/vsimem/geopub-tile-" + strconv.FormatInt(webpSeq.Add(1), 10) + ".webp"
	out, err := mem.Translate(name, []string{"-of", "WEBP", "-co", "LOSSLESS=TRUE"}, godal.ErrLogger(quiet))
	if err != nil {
		return nil, fmt.Errorf("rastertiles: encoding WebP: %w", err)
	}
	_ = out.Close()
	defer func() { _ = godal.VSIUnlink(name) }()
	f, err := godal.VSIOpen(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
