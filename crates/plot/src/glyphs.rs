//! Text for bitmap charts, drawn with `ab_glyph` from the embedded font.
//!
//! plotters' own `ab_glyph` text renderer places each glyph at its advance without the glyph's
//! left-side bearing, which makes words look unevenly spaced ("l ine"). [`GlyphBackend`] wraps a
//! drawing backend and draws text itself: glyphs laid out with their advances and kerning,
//! rasterized at their pixel bounds, blended with coverage as alpha. Everything else is passed to
//! the wrapped backend unchanged.

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// A backend whose text is drawn by [`GlyphBackend::draw_text`].
pub struct GlyphBackend<B> {
    inner: B,
    font: FontRef<'static>,
}

impl<B: DrawingBackend> GlyphBackend<B> {
    /// Wrap `inner`, drawing text with `font`.
    pub fn new(inner: B, font: FontRef<'static>) -> Self {
        GlyphBackend { inner, font }
    }

    /// Width and height (ascent − descent) of `text` at `size` pixels.
    fn measure(&self, text: &str, size: f64) -> (f32, f32) {
        let font = self.font.as_scaled(PxScale::from(size as f32));
        let mut caret = 0.0f32;
        let mut prev = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                caret += font.kern(p, id);
            }
            caret += font.h_advance(id);
            prev = Some(id);
        }
        (caret, font.ascent() - font.descent())
    }
}

impl<B: DrawingBackend> DrawingBackend for GlyphBackend<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let (w, h) = self.measure(text, style.size());
        Ok((w.ceil().max(0.0) as u32, h.ceil().max(0.0) as u32))
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 || text.is_empty() {
            return Ok(());
        }
        let (width, height) = self.measure(text, style.size());
        let (width, height) = (width.round() as i32, height.round() as i32);
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (w, h) = self.inner.get_size();
        let font = self.font.as_scaled(PxScale::from(style.size() as f32));
        let ascent = font.ascent();
        let mut pixels: Vec<(i32, i32, f32)> = Vec::new();
        let mut caret = 0.0f32;
        let mut prev = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                caret += font.kern(p, id);
            }
            let glyph = id.with_scale_and_position(font.scale(), point(caret, ascent));
            caret += font.h_advance(id);
            prev = Some(id);
            if let Some(outline) = self.font.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                let (x0, y0) = (bounds.min.x as i32, bounds.min.y as i32);
                outline.draw(|gx, gy, coverage| {
                    if coverage > 0.0 {
                        pixels.push((x0 + gx as i32, y0 + gy as i32, coverage.min(1.0)));
                    }
                });
            }
        }
        for (x, y, coverage) in pixels {
            let (x, y) = transform.transform(x + dx, y + dy);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if x >= 0 && y >= 0 && x < w as i32 && y < h as i32 {
                self.inner.draw_pixel(
                    (x, y),
                    BackendColor {
                        alpha: color.alpha * f64::from(coverage),
                        rgb: color.rgb,
                    },
                )?;
            }
        }
        Ok(())
    }
}
